/**
 * The event store of resumable SSE streams (legacy Streamable HTTP, 2025-11-25 "Resumability and
 * Redelivery"): {@linkcode EventStore}, the contract, event ids that name their stream, and
 * {@linkcode MemoryEventStore}, the default, bounded by bytes and by age.
 * @module
 */
import { integerOption, numberOption } from "../../stream/options.ts";
import { systemTimeProvider, type TimeProvider } from "../../stream/time_provider.ts";

/** One SSE event of a resumable stream, as stored. */
export interface StoredEvent {
  /** The stream the event went out on. */
  readonly streamId: string;
  /** Its place in the stream: 0 is the priming event, then 1, 2, … */
  readonly seq: number;
  /** The event's `data`: a JSON-RPC message's JSON text ("" for the priming event). */
  readonly data: string;
  /** True on the stream's last event (the reply of a POST stream): a resumed stream ends after it. */
  readonly last?: boolean;
}

/** What {@linkcode EventStore.read} found. */
export type EventReadResult =
  | { readonly kind: "events"; readonly events: readonly StoredEvent[] }
  /** No such stream for this session: never written, another session's, or evicted whole. */
  | { readonly kind: "unknown" }
  /** The stream is known, but events after the asked one were evicted: replay would skip some. */
  | { readonly kind: "expired" };

/**
 * Where a server keeps the events of its resumable streams until a client resumes them. The
 * memory store is the default; `RedisEventStore` (`onemodelcontext/redis`) shares them between
 * replicas. Implementations must keep each stream's events in `seq` order and bound what they hold.
 */
export interface EventStore {
  /** Records `event`, sent on a stream of session `sessionId`. */
  append(sessionId: string, event: StoredEvent): Promise<void> | void;
  /**
   * The events of stream `streamId` after `seq`, in order, when the stream belongs to `sessionId`
   * and none of them was evicted. Another session's stream is `unknown`, never its events.
   */
  read(sessionId: string, streamId: string, seq: number): Promise<EventReadResult> | EventReadResult;
  /** Forgets the streams of an ended session. Optional: bounds evict them anyway. */
  deleteSession?(sessionId: string): Promise<void> | void;
}

/** The default {@linkcode MemoryEventStoreOptions.maxBytes}: 16 MiB. */
export const DEFAULT_EVENT_STORE_MAX_BYTES = 16 * 1024 * 1024;
/** The default {@linkcode MemoryEventStoreOptions.maxAge}: 5 minutes. */
export const DEFAULT_EVENT_STORE_MAX_AGE = 300_000;
/** What one stored event costs besides its data, counted against `maxBytes` (ids, record, list slot). */
export const STORED_EVENT_OVERHEAD_BYTES = 96;

/** Options of {@linkcode MemoryEventStore}. */
export interface MemoryEventStoreOptions {
  /**
   * Bytes of events held at most (data plus {@linkcode STORED_EVENT_OVERHEAD_BYTES} each); the oldest go first. Default 16 MiB.
   * @default 16 MiB
   */
  maxBytes?: number;
  /**
   * Milliseconds an event is kept; older ones go. Default 300 000.
   * @default 300000
   */
  maxAge?: number;
  /**
   * Clock of `maxAge`. Default the system clock.
   * @default the system clock
   */
  timeProvider?: TimeProvider;
}

interface MemoryStream {
  readonly sessionId: string;
  readonly events: StoredEvent[];
  /** Index of the first live event in `events`. */
  head: number;
  /** True once an event of this stream was evicted. */
  evicted: boolean;
}

interface Slot {
  readonly stream: MemoryStream;
  readonly streamId: string;
  readonly bytes: number;
  readonly at: number;
}

/**
 * Events in memory, oldest evicted first once they hold more than `maxBytes` or are older than
 * `maxAge` (checked on every append and read). One replica only: behind a load balancer without
 * pinning use `RedisEventStore`.
 *
 * @example
 * ```ts
 * const store = new MemoryEventStore({ maxBytes: 4 * 1024 * 1024, maxAge: 60_000 });
 * store.append("session-1", { streamId: "s1", seq: 1, data: "{}" });
 * store.read("session-1", "s1", 0); // { kind: "events", events: [ … ] }
 * ```
 */
export class MemoryEventStore implements EventStore {
  readonly maxBytes: number;
  readonly maxAge: number;
  readonly #time: TimeProvider;
  readonly #streams = new Map<string, MemoryStream>();
  #slots: Slot[] = [];
  #slotHead = 0;
  #bytes = 0;

  constructor(options: MemoryEventStoreOptions = {}) {
    this.maxBytes = integerOption("maxBytes", options.maxBytes, DEFAULT_EVENT_STORE_MAX_BYTES, 1);
    this.maxAge = numberOption("maxAge", options.maxAge, DEFAULT_EVENT_STORE_MAX_AGE, 1);
    this.#time = options.timeProvider ?? systemTimeProvider;
  }

  /** Bytes held now (data plus the per-event overhead). */
  get bytes(): number {
    return this.#bytes;
  }

  /** Events held now. */
  get size(): number {
    return this.#slots.length - this.#slotHead;
  }

  append(sessionId: string, event: StoredEvent): void {
    let stream = this.#streams.get(event.streamId);
    if (!stream) {
      stream = { sessionId, events: [], head: 0, evicted: false };
      this.#streams.set(event.streamId, stream);
    } else if (stream.sessionId !== sessionId) {
      return; // a stream id is one session's: never mixed
    }
    stream.events.push(event);
    const bytes = event.data.length + STORED_EVENT_OVERHEAD_BYTES;
    this.#slots.push({ stream, streamId: event.streamId, bytes, at: this.#time.now() });
    this.#bytes += bytes;
    this.#evict();
  }

  read(sessionId: string, streamId: string, seq: number): EventReadResult {
    this.#evict();
    const stream = this.#streams.get(streamId);
    if (!stream || stream.sessionId !== sessionId) return { kind: "unknown" };
    const first = stream.events[stream.head];
    if (first === undefined || (stream.evicted && first.seq > seq + 1)) {
      return stream.evicted ? { kind: "expired" } : { kind: "unknown" };
    }
    const last = stream.events[stream.events.length - 1]!;
    if (seq > last.seq) return { kind: "unknown" }; // a cursor this server never sent
    const events: StoredEvent[] = [];
    for (let i = stream.head; i < stream.events.length; i++) {
      const event = stream.events[i]!;
      if (event.seq > seq) events.push(event);
    }
    return { kind: "events", events };
  }

  deleteSession(sessionId: string): void {
    for (const [streamId, stream] of this.#streams) {
      if (stream.sessionId === sessionId) {
        this.#streams.delete(streamId);
        stream.head = stream.events.length; // its slots free their bytes as they leave the queue
      }
    }
  }

  #evict(): void {
    const oldest = this.#time.now() - this.maxAge;
    while (this.#slotHead < this.#slots.length) {
      const slot = this.#slots[this.#slotHead]!;
      if (this.#bytes <= this.maxBytes && slot.at >= oldest) break;
      this.#slots[this.#slotHead++] = undefined as unknown as Slot;
      this.#bytes -= slot.bytes;
      const { stream } = slot;
      if (stream.head < stream.events.length) {
        stream.events[stream.head++] = undefined as unknown as StoredEvent;
        stream.evicted = true;
        if (stream.head === stream.events.length) {
          if (this.#streams.get(slot.streamId) === stream) this.#streams.delete(slot.streamId);
        } else if (stream.head > 64 && stream.head * 2 > stream.events.length) {
          stream.events.splice(0, stream.head);
          stream.head = 0;
        }
      }
    }
    if (this.#slotHead > 1024 && this.#slotHead * 2 > this.#slots.length) {
      this.#slots = this.#slots.slice(this.#slotHead);
      this.#slotHead = 0;
    }
  }
}

/** The SSE `id` of event `seq` of stream `streamId`: `<streamId>_<seq>`. */
export function formatEventId(streamId: string, seq: number): string {
  return `${streamId}_${seq}`;
}

/** The stream and place an event id names, or `undefined` when it is not one of ours. */
export function parseEventId(id: string): { streamId: string; seq: number } | undefined {
  const match = /^([A-Za-z0-9-]{1,64})_(\d{1,15})$/.exec(id.trim());
  if (!match) return undefined;
  return { streamId: match[1]!, seq: Number(match[2]) };
}

/** A fresh stream id: 128 random bits, hex (unique across replicas without coordination). */
export function newStreamId(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  let id = "";
  for (const byte of bytes) id += byte.toString(16).padStart(2, "0");
  return id;
}
