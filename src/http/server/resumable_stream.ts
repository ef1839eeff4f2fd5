/**
 * `ResumableStream`: one legacy SSE stream (a POST's response or a session's GET stream) that
 * outlives its HTTP connection. Every event gets an id naming the stream and goes to the
 * {@linkcode EventStore} before the connection; a client that lost the connection resumes with
 * `GET` + `Last-Event-ID` and gets every later event once, in order, then the live ones.
 * @module
 */
import { type Deferred, deferred } from "../../stream/deferred.ts";
import { CancelledError, ClosedError } from "../../wire/errors.ts";
import { JsonText } from "../../wire/json_text.ts";
import {
  type EventReadResult,
  type EventStore,
  formatEventId,
  newStreamId,
  type StoredEvent,
} from "./event_store.ts";
import { SseStream, type SseStreamOptions } from "./sse/sse_stream.ts";

/** The default {@linkcode ResumableStreamOptions.retry}: 1 s. */
export const DEFAULT_RESUME_RETRY = 1000;

/** The `resumability` option of `createHttpHandler`. */
export interface ResumabilityOptions {
  /**
   * Where events wait for a resume. Default a `MemoryEventStore` with `maxBytes` and `maxAge`.
   * @default a `MemoryEventStore` with `maxBytes` and `maxAge`
   */
  eventStore?: EventStore;
  /**
   * Bytes the default memory store holds at most. Default 16 MiB.
   * @default 16 MiB
   */
  maxBytes?: number;
  /**
   * Milliseconds the default memory store keeps an event. Default 300 000.
   * @default 300000
   */
  maxAge?: number;
  /**
   * The `retry` field (ms) of each stream's priming event: how long clients wait before resuming. Default 1000.
   * @default 1000
   */
  retry?: number;
}

/** Options of {@linkcode ResumableStream}. */
export interface ResumableStreamOptions {
  readonly store: EventStore;
  /** The session the stream belongs to (only its `Last-Event-ID`s reach it). */
  readonly sessionId: string;
  /** Options of each connection's SSE stream (byte bound, keep-alive, clock). */
  readonly sse?: SseStreamOptions;
  /** The `retry` (ms) sent with the priming event: how long a client waits before it resumes. */
  readonly retry?: number;
}

/** The outcome of a resume: the SSE response, or why there is none. */
export type ResumeOutcome =
  | { kind: "resumed"; response: Response }
  | Exclude<EventReadResult, { kind: "events" }>;

/**
 * A stream whose events are stored before they are sent. {@linkcode ResumableStream.response}
 * opens its first connection with a priming event (an id, `retry`, empty data); a lost connection
 * drops nothing (events keep going to the store); {@linkcode ResumableStream.detach} ends the
 * connection on purpose (the client polls); {@linkcode ResumableStream.resume} serves a new one.
 * Stores, sends and resumes run one at a time, in call order, so no event is missed or doubled.
 *
 * @example
 * ```ts ignore (ResumableStream is internal: createHttpHandler's resumability option uses it)
 * const stream = new ResumableStream({ store: new MemoryEventStore(), sessionId: "s" });
 * const response = stream.response(); // priming event first
 * await stream.write({ jsonrpc: "2.0", method: "notifications/progress", params });
 * await stream.close(); // the last event: a resumed connection ends after it
 * ```
 */
export class ResumableStream {
  readonly streamId: string = newStreamId();
  readonly #options: ResumableStreamOptions;
  readonly #retry: number;
  #seq = 0;
  #connection: SseStream | undefined;
  #turn: Promise<void> = Promise.resolve();
  #closing = false;
  #failure: Error | undefined;
  readonly #closed: Deferred = deferred();

  constructor(options: ResumableStreamOptions) {
    this.#options = options;
    this.#retry = options.retry ?? DEFAULT_RESUME_RETRY;
  }

  /** True while a client connection is attached. */
  get connected(): boolean {
    return this.#connection !== undefined;
  }

  /** Resolves once the stream ended: its last event stored (after `close()`), or it was aborted. */
  get closed(): Promise<void> {
    return this.#closed.promise;
  }

  /** The first connection: an SSE response whose first event primes the client to resume. */
  response(init: ResponseInit = {}): Response {
    const connection = this.#connect();
    this.#connection = connection;
    void this.#enqueue(async () => {
      await this.#options.store.append(this.#options.sessionId, {
        streamId: this.streamId,
        seq: 0,
        data: "",
      });
      await connection.writeEvent({ id: formatEventId(this.streamId, 0), retry: this.#retry, data: "" })
        .catch(() => this.#drop(connection));
    });
    return connection.response(init);
  }

  /**
   * Stores `message` (JSON; a `JsonText` as its text) as the next event and sends it on the connection, if one is attached (waiting
   * while it is full). Rejects with `ClosedError` after `close()`, with the reason after `abort()`.
   */
  write(message: unknown): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#closing) {
      return Promise.reject(new ClosedError("The SSE stream is closed: nothing more can be written"));
    }
    const data = message instanceof JsonText ? message.text : JSON.stringify(message);
    if (data === undefined) {
      return Promise.reject(
        new TypeError(`Cannot send ${typeof message} as an SSE event: JSON has no text for it`),
      );
    }
    const event: StoredEvent = { streamId: this.streamId, seq: ++this.#seq, data };
    return this.#enqueue(async () => {
      await this.#options.store.append(this.#options.sessionId, event);
      await this.#send(event);
    });
  }

  /** Ends the stream: stores its end marker, then ends the connection once it read everything. */
  close(): Promise<void> {
    if (this.#closing || this.#failure) return this.#closed.promise;
    this.#closing = true;
    const end: StoredEvent = { streamId: this.streamId, seq: ++this.#seq, data: "", last: true };
    void this.#enqueue(async () => {
      await this.#options.store.append(this.#options.sessionId, end);
      const connection = this.#connection;
      this.#connection = undefined;
      await connection?.close();
    }).finally(() => this.#closed.resolve());
    return this.#closed.promise;
  }

  /** Ends the stream now: the connection errors, later writes reject with `reason`. */
  abort(reason: unknown = new CancelledError("The SSE stream was aborted by the server")): void {
    if (this.#failure) return;
    this.#failure = reason instanceof Error ? reason : new CancelledError(String(reason));
    this.#closing = true;
    this.#connection?.abort(this.#failure);
    this.#connection = undefined;
    this.#closed.resolve();
  }

  /**
   * Ends the current connection without ending the stream, once it read what was sent (the
   * client resumes after `retry` ms; 2025-11-25 polling). True when a connection was attached.
   */
  detach(): boolean {
    const connection = this.#connection;
    if (!connection) return false;
    void this.#enqueue(async () => {
      if (this.#connection === connection) this.#connection = undefined;
      await connection.close();
    });
    return true;
  }

  /**
   * A new connection for a client that last saw event `seq`: every stored event after it, in
   * order, then the live ones (or the end). A connection still attached is ended first (the
   * client left it). Resolves with why not when the store no longer has those events.
   */
  resume(seq: number): Promise<ResumeOutcome> {
    const outcome = deferred<ResumeOutcome>();
    // The client left the old connection: a write waiting on it must not hold the resume up.
    this.#connection?.abort(new CancelledError("The client resumed this stream on a new connection"));
    this.#connection = undefined;
    void this.#enqueue(async () => {
      const read = await this.#options.store.read(this.#options.sessionId, this.streamId, seq);
      if (read.kind !== "events") return outcome.resolve(read);
      const connection = this.#connect();
      outcome.resolve({ kind: "resumed", response: connection.response() });
      const ended = await replay(connection, read.events);
      if (ended || this.#closing || this.#failure) {
        if (!this.#failure) await connection.close();
        return;
      }
      if (!connection.signal.aborted) this.#connection = connection;
    }).catch((error: unknown) => outcome.resolve(Promise.reject(error) as never));
    return outcome.promise;
  }

  /** A new connection; it lets go of itself when its client goes away. */
  #connect(): SseStream {
    const connection: SseStream = new SseStream({
      ...this.#options.sse,
      onCancel: () => this.#drop(connection),
    });
    return connection;
  }

  async #send(event: StoredEvent): Promise<void> {
    const connection = this.#connection;
    if (!connection) return;
    try {
      await connection.writeEvent({ id: formatEventId(event.streamId, event.seq), data: event.data });
    } catch {
      this.#drop(connection); // the client is gone: the event waits in the store for a resume
    }
  }

  #drop(connection: SseStream): void {
    if (this.#connection === connection) this.#connection = undefined;
  }

  #enqueue(step: () => Promise<void>): Promise<void> {
    const run = this.#turn.then(step);
    this.#turn = run.catch(() => {});
    return run;
  }
}

/**
 * Writes stored `events` on `connection` with their ids, skipping priming events; stops at the
 * stream's end marker. True when the end was reached. A client gone mid-replay ends it early.
 */
export async function replay(connection: SseStream, events: readonly StoredEvent[]): Promise<boolean> {
  for (const event of events) {
    if (event.last) return true;
    if (event.data === "") continue;
    try {
      await connection.writeEvent({ id: formatEventId(event.streamId, event.seq), data: event.data });
    } catch {
      return false;
    }
  }
  return false;
}

/**
 * Serves a resume of a stream that is not live here (it ended, or another replica writes it): the
 * stored events after `seq`, then the connection ends (after a `retry` hint when the stream goes on,
 * so the client polls again).
 */
export async function resumeStored(
  store: EventStore,
  target: { sessionId: string; streamId: string; seq: number },
  options: { sse?: SseStreamOptions; retry?: number },
): Promise<ResumeOutcome> {
  const read = await store.read(target.sessionId, target.streamId, target.seq);
  if (read.kind !== "events") return read;
  const connection = new SseStream({ ...options.sse });
  void (async () => {
    const ended = await replay(connection, read.events);
    if (!ended && read.events.length === 0) {
      // Nothing new yet: tell the client when to look again, keep its cursor (no id).
      await connection.writeEvent({ retry: options.retry ?? DEFAULT_RESUME_RETRY, data: "" }).catch(() => {});
    }
    await connection.close();
  })();
  return { kind: "resumed", response: connection.response() };
}
