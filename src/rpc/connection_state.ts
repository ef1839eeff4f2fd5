/**
 * The lifecycle of a {@linkcode JsonRpcConnection}: one state, one table of allowed transitions, and
 * the outcome the connection resolves `closed` with.
 * @module
 */
import { deferred } from "../stream/deferred.ts";

/**
 * - `new`: built, not reading yet.
 * - `open`: reading and dispatching.
 * - `eof`: input ended; running handlers get their grace and what was read is still dispatched.
 * - `stopping`: nothing more is dispatched; handlers are aborted and awaited (bounded).
 * - `draining`: handlers are done or out of time; queued output drains (bounded).
 * - `closed`: ended; `closed` resolves once teardown is complete.
 */
export type ConnectionState = "new" | "open" | "eof" | "stopping" | "draining" | "closed";

/** Every allowed move. A fault or a stalled reader jumps to `closed` from any live state. */
export const CONNECTION_TRANSITIONS: { readonly [From in ConnectionState]: readonly ConnectionState[] } = {
  new: ["open", "stopping", "closed"],
  open: ["eof", "stopping", "closed"],
  eof: ["stopping", "closed"],
  stopping: ["draining", "closed"],
  draining: ["closed"],
  closed: [],
};

/** How and why a connection closed. */
export interface ConnectionCloseInfo {
  /** `eof`: the peer ended its output; `closed`: the owner closed; `fault`: the transport failed. */
  reason: "eof" | "closed" | "fault";
  error?: Error;
  /** How the output drain ended. */
  drain?: string;
}

/** The state of one connection, changed only through {@linkcode ConnectionLifecycle.move}. */
export class ConnectionLifecycle {
  #state: ConnectionState = "new";
  /** An outcome fixed before teardown completes (a stalled reader), preferred over the later one. */
  #claimed: ConnectionCloseInfo | undefined;
  #settled = false;
  readonly #closed = deferred<ConnectionCloseInfo>();
  /** Why the connection ended, for calls made afterwards. */
  endError: Error | undefined;

  get state(): ConnectionState {
    return this.#state;
  }

  /** Applies the move when the table allows it; returns false (and changes nothing) otherwise. */
  move(to: ConnectionState): boolean {
    if (!CONNECTION_TRANSITIONS[this.#state].includes(to)) return false;
    this.#state = to;
    return true;
  }

  /** Reading input goes on. */
  get reading(): boolean {
    return this.#state === "open";
  }

  /** Input read so far is still dispatched. */
  get dispatching(): boolean {
    return this.#state === "open" || this.#state === "eof";
  }

  /** New outgoing requests are accepted. */
  get acceptsRequests(): boolean {
    return this.#state === "new" || this.#state === "open";
  }

  /** Fixes the outcome now, ahead of teardown; the first claim wins. */
  claim(info: ConnectionCloseInfo): void {
    this.#claimed ??= info;
  }

  /** Ends in `closed` and resolves {@linkcode closed} once, with the claimed outcome or `info`. */
  finish(info: ConnectionCloseInfo): void {
    this.move("closed"); // from any live state; already closed is fine
    if (this.#settled) return;
    this.#settled = true;
    this.#closed.resolve(this.#claimed ?? info);
  }

  get closed(): Promise<ConnectionCloseInfo> {
    return this.#closed.promise;
  }
}
