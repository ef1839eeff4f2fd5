/**
 * Input read from the peer and not yet dispatched, in order, bounded by `maxQueuedInputBytes`.
 * @module
 */
import { wakeUp } from "../stream/deferred.ts";
import type { InputLine } from "../stream/line_splitter.ts";
import { ErrorCodes, ParseError, ProtocolError } from "../wire/errors.ts";
import {
  type ClassifiedMessage,
  classifyMessage,
  errorResponse,
  MAX_ID_LENGTH,
  requestKey,
} from "../wire/json_rpc_message.ts";
import { nestedMemberLiteral, scanMessageHead } from "../wire/scan_message_head.ts";
import { type BacklogEntry, ENTRY_OVERHEAD_BYTES } from "./backlog_entry.ts";
import { idFromLiteral } from "./id_from_literal.ts";
import type { OversizeReply } from "./oversize_reply.ts";

export { type BacklogEntry, ENTRY_OVERHEAD_BYTES } from "./backlog_entry.ts";

/**
 * What takes effect as soon as it is read: a reply to one of our calls, `notifications/cancelled`, or
 * an oversize line whose head says it was a reply (`id` when the head held it).
 */
export type Immediate =
  | Extract<ClassifiedMessage, { kind: "result" | "error" }>
  | (Extract<ClassifiedMessage, { kind: "notification" }> & { requestIdLiteral?: string })
  | OversizeReply;

/** Options of {@linkcode InputBacklog}. */
export interface InputBacklogOptions {
  /**
   * Bound over queued input plus the params of running handlers, in UTF-8 bytes of their lines
   * (`maxInFlightBytes`). Default 64 MiB.
   * @default 64 MiB
   */
  maxInFlightBytes?: number;
  /**
   * True when a JSON-RPC batch is served now (else it gets one -32600). Default: never.
   * @default never
   */
  acceptsBatch?: () => boolean;
}

/**
 * A FIFO of {@linkcode BacklogEntry}s counted in UTF-8 bytes of their lines plus
 * {@linkcode ENTRY_OVERHEAD_BYTES} each. It is `full` at `max` (the read-ahead), or when the queued
 * bytes plus those of running handlers (`running`, see {@linkcode InputBacklog.hold}) reach
 * `maxInFlightBytes`; in both cases one larger message still enters when there is nothing to wait
 * for. The reader stops while it is full, so the peer's pipe fills instead of our memory.
 */
export class InputBacklog {
  readonly max: number;
  readonly maxInFlightBytes: number;
  /** Fired on every push, shift, drop and release. */
  readonly changed = wakeUp();
  /** Entries from `#head` on; taken ones before it are cleared, and the array is compacted now and then (shift() is O(n)). */
  #entries: BacklogEntry[] = [];
  #head = 0;
  readonly #acceptsBatch: () => boolean;
  #bytes = 0;
  #running = 0;

  constructor(max: number, options: InputBacklogOptions = {}) {
    this.max = max;
    this.maxInFlightBytes = options.maxInFlightBytes ?? 64 * 1024 * 1024;
    this.#acceptsBatch = options.acceptsBatch ?? (() => false);
  }

  get length(): number {
    return this.#entries.length - this.#head;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** Bytes of messages handed to handlers that have not finished. */
  get running(): number {
    return this.#running;
  }

  /** True when the reader must wait before reading more. */
  get full(): boolean {
    if (this.#bytes > 0 && this.#bytes >= this.max) return true;
    const inFlight = this.#bytes + this.#running;
    return inFlight > 0 && inFlight >= this.maxInFlightBytes;
  }

  /** The oldest entry, left in place. */
  get head(): BacklogEntry | undefined {
    return this.#entries[this.#head];
  }

  /** A dispatched message's bytes stay counted while its handler runs. */
  hold(bytes: number): void {
    this.#running += bytes;
  }

  /** A handler finished: its message's bytes no longer count. */
  release(bytes: number): void {
    if (bytes === 0) return;
    this.#running -= bytes;
    this.changed.fire();
  }

  /**
   * Reads one input event: a request, a notification or the error reply owed for a bad line (when
   * `answerInvalid`) joins the backlog; a reply or a cancellation is returned to take effect now.
   * Bad input is reported.
   */
  admit(item: InputLine, answerInvalid: boolean, report: (error: Error) => void): Immediate | undefined {
    if (item.kind === "error") {
      report(item.error);
      const head = item.head;
      if (head && !head.hasMethod && (head.hasResult || head.hasError)) {
        return { kind: "oversize_reply", id: idFromLiteral(head.idLiteral), error: item.error };
      }
      const code = item.error.code === "invalid_utf8" ? ErrorCodes.ParseError : ErrorCodes.InvalidRequest;
      // An oversize request whose head held its id gets an answer its caller can match.
      const id = head?.hasMethod ? idFromLiteral(head.idLiteral) : undefined;
      if (answerInvalid) {
        this.push({ bytes: ENTRY_OVERHEAD_BYTES, reply: errorResponse(id, code, item.error.message) });
      }
      return undefined;
    }
    let value: unknown;
    try {
      value = JSON.parse(item.text);
    } catch (cause) {
      report(new ParseError(item.text, { cause }));
      if (answerInvalid) {
        this.push({
          bytes: ENTRY_OVERHEAD_BYTES,
          reply: errorResponse(undefined, ErrorCodes.ParseError, "Parse error: invalid JSON"),
        });
      }
      return undefined;
    }
    if (Array.isArray(value) && this.#acceptsBatch()) {
      if (value.length === 0) {
        report(new ProtocolError("Invalid JSON-RPC message: an empty batch"));
        if (answerInvalid) {
          this.push({
            bytes: ENTRY_OVERHEAD_BYTES,
            reply: errorResponse(undefined, ErrorCodes.InvalidRequest, "Invalid request: an empty batch"),
          });
        }
        return undefined;
      }
      this.push({ bytes: item.bytes + ENTRY_OVERHEAD_BYTES, batch: value.map(classifyMessage) });
      return undefined;
    }
    const message: ClassifiedMessage = classifyMessage(value);
    switch (message.kind) {
      case "result":
      case "error":
        return message;
      case "invalid":
        report(new ProtocolError(`Invalid JSON-RPC message: ${message.reason}`));
        if (answerInvalid) {
          this.push({
            bytes: ENTRY_OVERHEAD_BYTES,
            reply: errorResponse(message.id, ErrorCodes.InvalidRequest, `Invalid request: ${message.reason}`),
          });
        }
        return undefined;
      case "notification":
        if (message.method === "notifications/cancelled") return withRequestIdLiteral(message, item.text);
        this.push({
          bytes: item.bytes + ENTRY_OVERHEAD_BYTES,
          notification: { method: message.method, params: message.params },
        });
        return undefined;
      case "request": {
        const request = message.request;
        if (typeof request.id === "number" && !Number.isSafeInteger(request.id)) {
          // JSON.parse rounded the id (or it is a fraction): keep the text the peer wrote, to echo it.
          const literal = scanMessageHead(item.text).idLiteral;
          if (literal !== undefined && literal.length > MAX_ID_LENGTH) {
            const reason = `A request id must be at most ${MAX_ID_LENGTH} characters, got ${literal.length}`;
            report(new ProtocolError(`Invalid JSON-RPC message: ${reason}`));
            if (answerInvalid) {
              this.push({
                bytes: ENTRY_OVERHEAD_BYTES,
                reply: errorResponse(undefined, ErrorCodes.InvalidRequest, `Invalid request: ${reason}`),
              });
            }
            return undefined;
          }
          if (literal !== undefined && literal !== String(request.id)) request.idLiteral = literal;
        }
        this.push({ bytes: item.bytes + ENTRY_OVERHEAD_BYTES, request, key: requestKey(request) });
        return undefined;
      }
    }
  }

  push(entry: BacklogEntry): void {
    this.#entries.push(entry);
    this.#bytes += entry.bytes;
    this.changed.fire();
  }

  /** Removes and returns the oldest entry. */
  shift(): BacklogEntry | undefined {
    if (this.#head === this.#entries.length) return undefined;
    const entry = this.#entries[this.#head]!;
    this.#entries[this.#head++] = undefined as unknown as BacklogEntry; // let it be collected
    if (this.#head === this.#entries.length) {
      this.#entries.length = 0;
      this.#head = 0;
    } else if (this.#head >= 256 && this.#head * 2 >= this.#entries.length) {
      this.#entries = this.#entries.slice(this.#head);
      this.#head = 0;
    }
    this.#bytes -= entry.bytes;
    this.changed.fire();
    return entry;
  }

  /** Removes the entries that match, in order, keeping the byte count right. */
  drop(match: (entry: BacklogEntry) => boolean): BacklogEntry[] {
    const dropped: BacklogEntry[] = [];
    for (let i = this.#entries.length - 1; i >= this.#head; i--) {
      const entry = this.#entries[i]!;
      if (!match(entry)) continue;
      this.#entries.splice(i, 1);
      this.#bytes -= entry.bytes;
      dropped.unshift(entry);
    }
    if (dropped.length > 0) this.changed.fire();
    return dropped;
  }
}

/** A cancellation of an id JSON.parse could not hold exactly carries the id's wire text, to find it. */
function withRequestIdLiteral(
  message: Extract<ClassifiedMessage, { kind: "notification" }>,
  text: string,
): Immediate {
  const requestId = (message.params as { requestId?: unknown } | undefined)?.requestId;
  if (typeof requestId !== "number" || Number.isSafeInteger(requestId)) return message;
  const literal = nestedMemberLiteral(text, "params", "requestId");
  if (literal === undefined || literal === String(requestId) || literal.length > MAX_ID_LENGTH) {
    return message;
  }
  return { ...message, requestIdLiteral: literal };
}
