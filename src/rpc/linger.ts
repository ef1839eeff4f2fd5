/**
 * The bounded way out of a connection: after input EOF, handlers get `endOfStreamTimeout` of grace,
 * then their signals abort, then at most `shutdownTimeout` more, output drain included. On the
 * owner's close the grace is zero. Throughout, output that has bytes pending and completes no block
 * write for `shutdownTimeout` is a stalled reader, and the connection is cut off.
 * @module
 */
import { ClosedError, ErrorCodes, TimeoutError } from "../wire/errors.ts";
import type { NewlineChannel } from "../stream/newline_channel.ts";
import { type Deadline, deadline, settlesWithin } from "../stream/time_kit.ts";
import type { TimeProvider } from "../stream/time_provider.ts";
import type { ConnectionCloseInfo, ConnectionLifecycle } from "./connection_state.ts";
import type { HandlerSlots } from "./handler_slots.ts";
import type { BacklogEntry } from "./backlog_entry.ts";
import type { InputBacklog } from "./input_backlog.ts";
import { errorResponse } from "../wire/json_rpc_message.ts";

/** Why the connection lingers: the peer's EOF or the owner's close. */
export type LingerReason = "eof" | "closed";

/** What {@linkcode Linger} needs from the connection. */
export interface LingerHost {
  readonly channel: NewlineChannel;
  readonly lifecycle: ConnectionLifecycle;
  readonly slots: HandlerSlots;
  readonly backlog: InputBacklog;
  /** Removes backlog entries that match (and wakes whoever waits on them). */
  dropFromBacklog(match: (entry: BacklogEntry) => boolean): BacklogEntry[];
  /** Sends a reply the connection itself owes; never rejects. */
  sendOwnError(reply: Record<string, unknown>): Promise<void>;
  /** The error pending work gets when the connection ends. */
  endError(fallback?: Error): Error;
  /** Tears down now (a stalled reader), ending with `info`. */
  cutOff(error: Error, info: ConnectionCloseInfo): void;
  finish(info: ConnectionCloseInfo): void;
}

/** Options of {@linkcode Linger}. */
export interface LingerOptions {
  time: TimeProvider;
  shutdownTimeout: number;
  /** True when every completed block write calls {@linkcode Linger.progress}; else progress is seen by polling the channel's count. */
  exactProgress: boolean;
}

/** Runs the linger of one connection and keeps its no-progress deadline. */
export class Linger {
  readonly #host: LingerHost;
  readonly #time: TimeProvider;
  readonly #shutdownTimeout: number;
  readonly #exactProgress: boolean;
  /** The no-progress deadline, while lingering. */
  #watch: Deadline | undefined;

  constructor(host: LingerHost, options: LingerOptions) {
    this.#host = host;
    this.#time = options.time;
    this.#shutdownTimeout = options.shutdownTimeout;
    this.#exactProgress = options.exactProgress;
  }

  /** A block write completed, or a message entered an empty queue: the no-progress deadline restarts. */
  progress(): void {
    this.#watch?.restart();
  }

  /** Stops the no-progress deadline (the connection closed). */
  cancel(): void {
    this.#watch?.cancel();
  }

  /** Gives handlers `grace`, aborts them, waits the rest of the budget, drains output, and finishes. */
  async run(reason: LingerReason, grace: number): Promise<void> {
    const host = this.#host;
    const time = this.#time;
    this.#watchOutputProgress(reason);
    const start = time.now();
    const budget = grace + this.#shutdownTimeout;
    const remaining = (): number => Math.max(0, start + budget - time.now());
    try {
      if (grace > 0 && !this.#quiet) await settlesWithin(time, this.#untilQuiet(), grace);
      this.#stopAdmitting(reason, grace);
      if (host.slots.busy > 0) {
        host.slots.abortAll(
          reason === "eof"
            ? new TimeoutError(
              `Handler still running ${grace} ms after input ended (endOfStreamTimeout)`,
              grace,
            )
            : new ClosedError("The connection was closed by its owner"),
        );
        if (!this.#quiet) await settlesWithin(time, this.#untilQuiet(), remaining());
      }
      if (!host.lifecycle.move("draining")) return; // closed meanwhile (a fault or a stalled reader)
      const drain = await host.channel.close({
        idleTimeout: this.#shutdownTimeout,
        totalTimeout: remaining(),
      });
      if (host.slots.busy > 0) host.slots.abortAll(host.endError());
      host.finish({ reason, drain, error: drain === "failed" ? host.channel.failure : undefined });
    } catch (error) {
      host.finish({ reason, error: error instanceof Error ? error : new Error(String(error)) });
    }
  }

  /** True when no handler runs and nothing waits in the input backlog. */
  get #quiet(): boolean {
    return this.#host.slots.busy === 0 && this.#host.backlog.length === 0;
  }

  /** Resolves once the connection is quiet or closed; wakes on every freed slot and backlog drop. */
  async #untilQuiet(): Promise<void> {
    const { slots, lifecycle } = this.#host;
    while (!this.#quiet && lifecycle.state !== "closed") await slots.freed.wait();
  }

  /**
   * Ends dispatch. After the EOF grace, requests still waiting in the backlog are answered with an
   * error (they never started; the peer is not left guessing); on close they are dropped.
   */
  #stopAdmitting(reason: LingerReason, grace: number): void {
    const host = this.#host;
    host.lifecycle.move("stopping");
    const left = host.dropFromBacklog(() => true);
    if (reason !== "eof" || host.lifecycle.state === "closed") return;
    for (const entry of left) {
      if (entry.request) {
        const message =
          `Request not started: input ended and endOfStreamTimeout (${grace} ms) ran out before a slot or output room was free`;
        void host.sendOwnError(errorResponse(entry.request.id, ErrorCodes.InternalError, message));
      } else if (entry.reply) {
        void host.sendOwnError(entry.reply);
      }
    }
  }

  /**
   * The no-progress deadline of the whole linger, handler phase included: output that has bytes
   * pending and completes no block write for `shutdownTimeout` is a stalled reader, cut off even
   * while handlers are still waiting for output room (the drain's own deadline only starts once they
   * are done). The clock restarts at the start of the linger, at every completed block write, and
   * whenever a message enters an empty queue.
   */
  #watchOutputProgress(reason: LingerReason): void {
    const limit = this.#shutdownTimeout;
    if (!Number.isFinite(limit)) return;
    const { channel, lifecycle } = this.#host;
    let blocksSeen = channel.blocksWritten;
    const watch = deadline(this.#time, limit, () => {
      if (lifecycle.state === "closed") return;
      const progressed = channel.blocksWritten !== blocksSeen;
      blocksSeen = channel.blocksWritten;
      // A channel we did not wrap reports no block writes: a block counted since the last look is
      // progress (its time approximate).
      const pending = channel.queuedOutputBytes > 0 || channel.outputFull;
      if (!pending || (progressed && !this.#exactProgress)) return watch.restart();
      const error = new TimeoutError(
        `Output made no progress for shutdownTimeout (${limit} ms): the reader is stalled`,
        limit,
      );
      this.#host.cutOff(error, { reason, drain: "idle_timeout", error });
    });
    this.#watch = watch;
  }
}
