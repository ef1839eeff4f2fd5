/**
 * `NewlineChannel`: newline-delimited JSON both ways over a duplex byte stream, with a bounded output
 * queue, block-sized writes, and a bounded drain on close.
 * @module
 */
import { abortable, type Deferred, deferred, wakeUp } from "./deferred.ts";
import { deadline, withTimeout } from "./time_kit.ts";
import type {
  DestroyableDuplex,
  DrainOptions,
  DrainOutcome,
  NewlineChannelOptions,
} from "./newline_channel_options.ts";
import { ClosedError, TimeoutError, WriteFailedError } from "../wire/errors.ts";
import { DEFAULT_MAX_MESSAGE_BYTES, type InputLine, LineReader } from "./line_splitter.ts";
import { integerOption, numberOption } from "./options.ts";
import {
  type BlockSink,
  encodeLine,
  lineBytes,
  OutputBlockQueue,
  type QueuedLine,
} from "./output_block_queue.ts";
import { OutputRoom, registerOutputRoom } from "./output_room.ts";
import { systemTimeProvider, type TimeProvider } from "./time_provider.ts";
import { blockWatcherOf } from "./block_write_watch.ts";

export type {
  DestroyableDuplex,
  DrainOptions,
  DrainOutcome,
  NewlineChannelOptions,
} from "./newline_channel_options.ts";
export { type BlockWriteWatcher, watchBlockWrites } from "./block_write_watch.ts";

const MiB = 1024 * 1024;
/** What `send` returns once a message is queued at once. */
const ACCEPTED: Promise<void> = Promise.resolve();

/**
 * One JSON message per line, `\n` terminated, over `{ readable, writable }`.
 *
 * Output: at most `maxQueuedOutputBytes` queued, counted in UTF-8 bytes with the block in flight
 * included, except that one larger message may enter an empty queue. Senders wait in order, and wait
 * *before* encoding while the queue is full, so a blocked sender holds no encoded copy (the sender at
 * the head of the line, once there is some room, may hold its own encoded message while it waits for
 * enough room). Bytes reach the stream in blocks of at most `writeBlockBytes`, one write at a time;
 * messages queued while a write runs are gathered into the next block. A failed write closes output
 * and nothing is written after it.
 *
 * Input: {@linkcode NewlineChannel.read} yields each line, or a typed error in its place.
 *
 * @example
 * ```ts
 * declare const duplex: Duplex; // e.g. stdio() of onemodelcontext/node
 * const channel = new NewlineChannel(duplex);
 * await channel.send({ jsonrpc: "2.0", method: "ping", id: 1 });
 * const next = await channel.read(); // { kind: "line", text: "…" } | { kind: "error", error } | undefined
 * await channel.close();
 * ```
 */
export class NewlineChannel implements AsyncDisposable {
  readonly maxQueuedOutputBytes: number;
  readonly writeBlockBytes: number;
  readonly maxMessageBytes: number;
  readonly #shutdownTimeout: number;
  readonly #drainTimeout: number;
  readonly #time: TimeProvider;
  readonly #onReport: ((error: Error) => void) | undefined;
  readonly #duplex: DestroyableDuplex;
  readonly #queue: OutputBlockQueue;
  /** How the queue's writer reaches the stream and reports back. */
  readonly #sink: BlockSink;
  readonly #out: WritableStreamDefaultWriter<Uint8Array>;
  readonly #input: LineReader;
  #turn: Promise<void> = Promise.resolve();
  #sendersWaiting = 0;
  /** Fired at every completed block write and at teardown. */
  readonly #progress = wakeUp();
  /** Fired with `#progress` and whenever a sender leaves (what room waiters wait for), and the average line size. */
  readonly #room = new OutputRoom();
  /** Restarts the no-progress deadline of the drain under way. */
  #onProgress: (() => void) | undefined;
  #failure: WriteFailedError | undefined;
  #closing = false;
  #aborted = false;
  #drain: Promise<DrainOutcome> | undefined;
  /** The outcome of the drain under way, settled early by `abort()` or a failed write. */
  #drainOutcome: Deferred<DrainOutcome> | undefined;
  #closed = deferred<void>();
  /** Completed block writes, for observers of progress. */
  blocksWritten = 0;

  constructor(duplex: DestroyableDuplex, options: NewlineChannelOptions = {}) {
    this.maxQueuedOutputBytes = integerOption("maxQueuedOutputBytes", options.maxQueuedOutputBytes, MiB, 1);
    this.#queue = new OutputBlockQueue(this.maxQueuedOutputBytes);
    this.writeBlockBytes = integerOption("writeBlockBytes", options.writeBlockBytes, 16 * 1024, 1);
    this.maxMessageBytes = integerOption(
      "maxMessageBytes",
      options.maxMessageBytes,
      DEFAULT_MAX_MESSAGE_BYTES,
      1,
    );
    this.#shutdownTimeout = numberOption("shutdownTimeout", options.shutdownTimeout, 5_000);
    this.#drainTimeout = numberOption("drainTimeout", options.drainTimeout, 10_000);
    this.#time = options.timeProvider ?? systemTimeProvider;
    this.#onReport = options.onReport;
    this.#duplex = duplex;
    this.#out = duplex.writable.getWriter();
    registerOutputRoom(this, this.#room);
    this.#input = new LineReader(duplex.readable, { maxMessageBytes: this.maxMessageBytes });
    this.#out.closed.catch((cause) => this.#fail(cause));
    this.#sink = {
      writer: this.#out,
      blockBytes: this.writeBlockBytes,
      stopped: () => this.#failure !== undefined || this.#aborted,
      written: () => {
        this.blocksWritten++;
        blockWatcherOf(this)?.progress();
        this.#signalProgress();
      },
      failed: (cause) => {
        this.#fail(cause);
        blockWatcherOf(this)?.failed(cause);
      },
    };
  }

  /** UTF-8 bytes accepted for output and not yet written (the block in flight included). */
  get queuedOutputBytes(): number {
    return this.#queue.bytes;
  }

  /** True when a sender would wait for room now (the queue is full or senders are already waiting). */
  get outputFull(): boolean {
    return this.#sendersWaiting > 0 || this.queuedOutputBytes >= this.maxQueuedOutputBytes;
  }

  /** True once output can take no more messages (closing, closed, or failed). */
  get outputClosed(): boolean {
    return this.#closing || this.#failure !== undefined || this.#aborted;
  }

  /** Why output failed, if a write failed. */
  get failure(): WriteFailedError | undefined {
    return this.#failure;
  }

  /** Resolves when the channel is fully closed (output drained or cut off, input released). */
  get closed(): Promise<void> {
    return this.#closed.promise;
  }

  /**
   * Queues `message` for output as one line. Resolves once the message is accepted into the queue;
   * waits first while the queue has no room. Rejects with `ClosedError` after close, with
   * `WriteFailedError` after a failed write, with the signal's reason if `signal` aborts first, or
   * with a `TypeError` when `JSON.stringify` has no text for `message` (undefined, a function, a
   * symbol) or throws (a BigInt, a cycle); nothing is written then.
   */
  send(message: unknown, signal?: AbortSignal): Promise<void> {
    try {
      this.#assertOpen();
      signal?.throwIfAborted();
      // Fast path: nobody waiting ahead and room now. The message is encoded only when it may go in.
      if (this.#sendersWaiting === 0 && this.#queue.room > 0) {
        const bytes = encodeLine(message);
        if (!this.#queue.fits(bytes)) return this.#sendInTurn(message, signal, bytes);
        this.#enqueue(bytes);
        return ACCEPTED; // one shared settled promise: no promise made per message
      }
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#sendInTurn(message, signal);
  }

  /** Waits for this sender's turn and for room, then enqueues. `encoded` is the message already encoded. */
  async #sendInTurn(message: unknown, signal: AbortSignal | undefined, encoded?: QueuedLine): Promise<void> {
    const previous = this.#turn;
    const mine = deferred();
    this.#turn = mine.promise;
    this.#sendersWaiting++;
    try {
      await previous;
      let bytes: QueuedLine;
      if (encoded !== undefined) {
        bytes = encoded;
      } else {
        await this.#waitFor(() => this.#queue.room > 0, signal);
        bytes = encodeLine(message);
      }
      await this.#waitFor(() => this.#queue.fits(bytes), signal);
      this.#enqueue(bytes);
    } finally {
      this.#sendersWaiting--;
      mine.resolve();
      // A sender leaving can end `outputFull` without any block being written: wake room waiters.
      this.#room.changed.fire();
    }
  }

  /** Resolves when a sender would not wait (room in the queue and no sender ahead), or output is closed. */
  async waitForOutputRoom(signal?: AbortSignal): Promise<void> {
    while (this.outputFull && !this.outputClosed) {
      signal?.throwIfAborted();
      await abortable(this.#room.changed.wait(), signal);
    }
  }

  /** The next input line, a typed error standing in for a bad line, or `undefined` at end of input. */
  read(): Promise<InputLine | undefined> {
    return this.#input.read();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<InputLine> {
    for (;;) {
      const next = await this.read();
      if (next === undefined) return;
      yield next;
    }
  }

  /**
   * Stops accepting messages, writes what is queued, then closes the output stream. Bounded by the
   * no-progress deadline (reset by every completed block write) and the total deadline; when either
   * runs out, or a write fails, output is torn down and nothing more is written.
   */
  closeOutput(options: DrainOptions = {}): Promise<DrainOutcome> {
    if (this.#drain) return this.#drain;
    let idleTimeout: number;
    let totalTimeout: number;
    try {
      idleTimeout = numberOption("idleTimeout", options.idleTimeout, this.#shutdownTimeout);
      totalTimeout = numberOption("totalTimeout", options.totalTimeout, this.#drainTimeout);
    } catch (error) {
      return Promise.reject(error);
    }
    this.#drain = this.#runDrain(idleTimeout, totalTimeout);
    return this.#drain;
  }

  /** Drains output within the deadlines (see {@linkcode closeOutput}), then stops reading input. */
  async close(options: DrainOptions = {}): Promise<DrainOutcome> {
    const outcome = await this.closeOutput(options);
    await this.#input.cancel().catch((cause: unknown) => this.#report(cause));
    this.#closed.resolve();
    return outcome;
  }

  /** Tears everything down now: nothing queued is written, input is released. */
  async abort(reason: unknown = new ClosedError("The channel was aborted")): Promise<void> {
    if (!this.#aborted) {
      this.#aborted = true;
      this.#closing = true;
      this.#teardown(reason);
      this.#signalProgress();
      // A write in flight may never settle (a stalled reader): the drain ends now, not with it.
      this.#drainOutcome?.resolve("aborted");
    }
    this.#drain ??= Promise.resolve("aborted");
    await this.#input.cancel(reason).catch((cause: unknown) => this.#report(cause));
    this.#closed.resolve();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /**
   * Writes what is queued, then closes the stream. The outcome is settled by the first of: the queue
   * drained and closed, a failed write or `abort()` (through `#drainOutcome`), the no-progress
   * deadline (restarted by every completed block), or the total bound.
   */
  async #runDrain(idleTimeout: number, totalTimeout: number): Promise<DrainOutcome> {
    this.#closing = true;
    if (this.#failure) return "failed";
    if (this.#aborted) return "aborted";
    const outcome = deferred<DrainOutcome>();
    this.#drainOutcome = outcome;
    const bounded = withTimeout(this.#time, outcome.promise, totalTimeout, {
      error: () => "total_timeout" as const,
    });
    const idle = deadline(this.#time, idleTimeout, () => outcome.resolve("idle_timeout"));
    this.#onProgress = idle.restart;
    void this.#writeOut().then(outcome.resolve);
    const result = await bounded.catch((timedOut: "total_timeout") => timedOut);
    this.#onProgress = undefined;
    idle.cancel();
    this.#signalProgress();
    if (result === "idle_timeout" || result === "total_timeout") {
      const limit = result === "idle_timeout" ? idleTimeout : totalTimeout;
      this.#aborted = true;
      this.#teardown(
        new TimeoutError(
          `Output did not drain within ${
            result === "idle_timeout" ? "shutdownTimeout" : "the total drain bound"
          } (${limit} ms)`,
          limit,
        ),
      );
    }
    return result;
  }

  /** Lets waiting senders have their turn, waits for the queue to empty, and closes the stream. */
  async #writeOut(): Promise<DrainOutcome> {
    try {
      await this.#turn; // senders that were already waiting get their turn
      while (this.#queue.bytes > 0 && !this.#failure && !this.#aborted) await this.#progress.wait();
      if (this.#failure) return "failed";
      if (this.#aborted) return "aborted";
      await this.#out.close();
      return "drained";
    } catch {
      // The close failed: the stream is gone; the outcome says how, the failure itself is `failure`.
      return this.#aborted ? "aborted" : "failed";
    }
  }

  #enqueue(bytes: QueuedLine): void {
    this.#assertOpen(true);
    this.#queue.push(bytes);
    this.#room.queued(lineBytes(bytes));
    void this.#queue.pump(this.#sink);
  }

  async #waitFor(ready: () => boolean, signal?: AbortSignal): Promise<void> {
    for (;;) {
      this.#assertOpen(true);
      if (ready()) return;
      signal?.throwIfAborted();
      await abortable(this.#progress.wait(), signal);
    }
  }

  #signalProgress(): void {
    this.#onProgress?.();
    this.#progress.fire();
    this.#room.changed.fire();
  }

  #assertOpen(allowClosing = false): void {
    if (this.#failure) throw this.#failure;
    if (this.#aborted) throw new ClosedError("Output is closed: the channel was torn down");
    if (this.#closing && !allowClosing) throw new ClosedError("Output is closed: the channel is closing");
  }

  #report(cause: unknown): void {
    try {
      this.#onReport?.(cause instanceof Error ? cause : new Error(String(cause)));
    } catch {
      // A failing reporter has nowhere else to report to, and must not break the channel.
    }
  }

  #fail(cause: unknown): void {
    if (this.#failure || this.#aborted) return;
    this.#failure = new WriteFailedError({ cause });
    this.#teardown(this.#failure);
    this.#signalProgress();
    this.#drainOutcome?.resolve("failed");
  }

  #teardown(reason: unknown): void {
    this.#queue.clear();
    // Rejects when the stream already failed or closed: it is torn down either way.
    this.#out.abort(reason).catch(() => {});
    try {
      this.#duplex.destroy?.(reason);
    } catch (cause) {
      this.#report(cause);
    }
  }
}
