/**
 * Input read from the peer and not yet dispatched, in order, bounded by `maxQueuedInputBytes`.
 * @module
 */
import { wakeUp } from "../stream/deferred.ts";
import type { InputLine } from "../stream/line_splitter.ts";
import { ErrorCodes, ParseError, ProtocolError } from "../wire/errors.ts";
import { type ClassifiedMessage, classifyMessage, errorResponse, type IncomingRequest, idKey } from "../wire/json_rpc_message.ts";

/** What one waiting input message costs in the backlog's accounting, besides its text. */
export const ENTRY_OVERHEAD_BYTES = 64;

/** One input message read and not yet dispatched. */
export interface BacklogEntry {
  bytes: number;
  request?: IncomingRequest;
  key?: string;
  notification?: { method: string; params: unknown };
  /** An error reply the connection owes for a bad line. */
  reply?: Record<string, unknown>;
}

/** What takes effect as soon as it is read: a reply to one of our calls, or `notifications/cancelled`. */
export type Immediate = Extract<ClassifiedMessage, { kind: "result" | "error" | "notification" }>;

/**
 * A FIFO of {@linkcode BacklogEntry}s counted in UTF-16 code units plus {@linkcode ENTRY_OVERHEAD_BYTES}
 * each. It is `full` at `max`, except that one larger message still enters an empty backlog; the
 * reader stops while it is full, so the peer's pipe fills instead of our memory.
 */
export class InputBacklog {
  readonly max: number;
  /** Fired on every push, shift and drop. */
  readonly changed = wakeUp();
  readonly #entries: BacklogEntry[] = [];
  #bytes = 0;

  constructor(max: number) {
    this.max = max;
  }

  get length(): number {
    return this.#entries.length;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** True when the reader must wait before reading more. */
  get full(): boolean {
    return this.#bytes > 0 && this.#bytes >= this.max;
  }

  /** The oldest entry, left in place. */
  get head(): BacklogEntry | undefined {
    return this.#entries[0];
  }

  /**
   * Reads one input event: a request, a notification or the error reply owed for a bad line (when
   * `answerInvalid`) joins the backlog; a reply or a cancellation is returned to take effect now.
   * Bad input is reported.
   */
  admit(item: InputLine, answerInvalid: boolean, report: (error: Error) => void): Immediate | undefined {
    if (item.kind === "error") {
      report(item.error);
      const code = item.error.code === "invalid_utf8" ? ErrorCodes.ParseError : ErrorCodes.InvalidRequest;
      if (answerInvalid) this.push({ bytes: ENTRY_OVERHEAD_BYTES, reply: errorResponse(undefined, code, item.error.message) });
      return undefined;
    }
    let message: ClassifiedMessage;
    try {
      message = classifyMessage(JSON.parse(item.text));
    } catch (cause) {
      report(new ParseError(item.text, { cause }));
      if (answerInvalid) this.push({ bytes: ENTRY_OVERHEAD_BYTES, reply: errorResponse(undefined, ErrorCodes.ParseError, "Parse error: invalid JSON") });
      return undefined;
    }
    switch (message.kind) {
      case "result":
      case "error":
        return message;
      case "invalid":
        report(new ProtocolError(`Invalid JSON-RPC message: ${message.reason}`));
        if (answerInvalid) this.push({ bytes: ENTRY_OVERHEAD_BYTES, reply: errorResponse(message.id, ErrorCodes.InvalidRequest, `Invalid request: ${message.reason}`) });
        return undefined;
      case "notification":
        if (message.method === "notifications/cancelled") return message;
        this.push({ bytes: item.text.length + ENTRY_OVERHEAD_BYTES, notification: { method: message.method, params: message.params } });
        return undefined;
      case "request":
        this.push({ bytes: item.text.length + ENTRY_OVERHEAD_BYTES, request: message.request, key: idKey(message.request.id) });
        return undefined;
    }
  }

  push(entry: BacklogEntry): void {
    this.#entries.push(entry);
    this.#bytes += entry.bytes;
    this.changed.fire();
  }

  /** Removes and returns the oldest entry. */
  shift(): BacklogEntry | undefined {
    const entry = this.#entries.shift();
    if (entry) {
      this.#bytes -= entry.bytes;
      this.changed.fire();
    }
    return entry;
  }

  /** Removes the entries that match, in order, keeping the byte count right. */
  drop(match: (entry: BacklogEntry) => boolean): BacklogEntry[] {
    const dropped: BacklogEntry[] = [];
    for (let i = this.#entries.length - 1; i >= 0; i--) {
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
