/**
 * Server-sent events out: {@linkcode SseStream}, a byte-bounded `text/event-stream` response body
 * whose writers wait while the client is not reading.
 * @module
 */
import { type Deferred, deferred } from "../../../stream/deferred.ts";
import { integerOption, numberOption } from "../../../stream/options.ts";
import { systemTimeProvider, type TimeProvider } from "../../../stream/time_provider.ts";
import { CancelledError, ClosedError } from "../../../wire/errors.ts";
import { JsonText } from "../../../wire/json_text.ts";
import { encodeSseEvent, type SseEventInit } from "./encode_sse_event.ts";
import { KEEP_ALIVE_TICK, KeepAliveClock, type KeepAliveTicking } from "./keep_alive_clock.ts";
import { WHEN_CLOSED } from "../long_streams.ts";

/** The response headers of every SSE stream. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache, no-transform",
  "X-Accel-Buffering": "no",
};

/** The default bound of an {@linkcode SseStream}: 1 MiB, like the stdio output queue. */
export const DEFAULT_MAX_BUFFERED_BYTES = 1024 * 1024;
/** The default keep-alive interval: 15 s. */
export const DEFAULT_KEEP_ALIVE_INTERVAL = 15_000;

/** Options of {@linkcode SseStream}. */
export interface SseStreamOptions {
  /**
   * UTF-8 bytes the stream holds for its reader before writers wait. One larger frame may still
   * enter an empty stream. Default 1 MiB.
   * @default 1 MiB
   */
  maxBufferedBytes?: number;
  /**
   * Milliseconds of quiet after which a `:` comment line is sent; 0 sends none. Default 15 000.
   * @default 15000
   */
  keepAliveInterval?: number;
  /**
   * Clock of the keep-alive timer. Default the system clock.
   * @default the system clock
   */
  timeProvider?: TimeProvider;
  /** Called once when the reader cancels or {@linkcode SseStream.abort} is called, with the reason (as {@linkcode SseStream.signal} aborts). */
  onCancel?: (reason: Error) => void;
}

/** What {@linkcode SseStream.pollFrame} returns while no frame is there: the reader is told when one comes. */
export const NO_FRAME_YET: unique symbol = Symbol("onemodelcontext.sse.noFrameYet");

/** A reader of {@linkcode SseStream.pollFrame}: told once that a frame came, or that the stream ended or failed. */
export interface FrameReader {
  frameReady(): void;
}

const ENCODER = new TextEncoder();
/** The turn of a stream nobody has written to yet: one settled promise for all. */
const SETTLED: Promise<void> = Promise.resolve();
const KEEP_ALIVE = ENCODER.encode(":\n\n");

/**
 * A `text/event-stream` response body with bounded memory.
 *
 * Frames wait in the stream until the reader (the HTTP layer, writing to the client) pulls them.
 * While the stream holds `maxBufferedBytes` or more, {@linkcode SseStream.write} waits, in order of
 * arrival, so a client that never reads holds the producer (a handler's progress or log calls), not
 * server memory. When the reader cancels (the client disconnected), waiting and later writes reject
 * with `CancelledError` and {@linkcode SseStream.signal} aborts, so the work behind
 * the stream can stop. A keep-alive comment is sent at each `keepAliveInterval` tick that found the
 * stream idle (nothing written since the previous tick, nothing waiting to be read).
 *
 * @example
 * ```ts
 * declare const timeProvider: TimeProvider, params: { progressToken: string; progress: number };
 * function progressThenReply(): Response {
 *   const stream = new SseStream({ timeProvider });
 *   queueMicrotask(async () => {
 *     await stream.write({ jsonrpc: "2.0", method: "notifications/progress", params });
 *     await stream.write({ jsonrpc: "2.0", id: 1, result: {} });
 *     await stream.close();
 *   });
 *   return stream.response();
 * }
 * ```
 */
export class SseStream implements AsyncDisposable, KeepAliveTicking {
  readonly maxBufferedBytes: number;
  #readable: ReadableStream<Uint8Array> | undefined;
  /** The keep-alive ticks: one clock (one timer) shared by the streams of a time provider and interval. */
  #keepAlive: KeepAliveClock | undefined;
  // Made when asked for: an idle stream (a listen stream) should hold as little as it can.
  #abort: AbortController | undefined;
  readonly #onCancel: ((reason: Error) => void) | undefined;
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  /** Frames not yet pulled by the reader, oldest first from `#head`. */
  #frames: Uint8Array[] = [];
  #head = 0;
  #bufferedBytes = 0;
  #turn: Promise<void> = SETTLED;
  /** Made when a writer waits for room: an idle stream has none. */
  #room: Deferred<void> | undefined;
  #pullWaiter: Deferred<void> | undefined;
  /** The reader of {@linkcode SseStream.pollFrame} waiting for a frame: an object, no promise per wait. */
  #frameReader: FrameReader | undefined;
  #closing = false;
  #ended = false;
  /** The reader saw the end: nothing more can happen to the stream. */
  #done = false;
  #failure: Error | undefined;
  #wroteSinceTick = false;
  /** Made when `closed` is read before the end: an idle stream counted by its endpoint has a callback instead. */
  #closed: Deferred<void> | undefined;
  #isClosed = false;
  #onClosed: (() => void) | undefined;

  constructor(options: SseStreamOptions = {}) {
    this.maxBufferedBytes = integerOption(
      "maxBufferedBytes",
      options.maxBufferedBytes,
      DEFAULT_MAX_BUFFERED_BYTES,
      1,
    );
    const keepAliveInterval = numberOption(
      "keepAliveInterval",
      options.keepAliveInterval,
      DEFAULT_KEEP_ALIVE_INTERVAL,
    );
    this.#onCancel = options.onCancel;
    if (keepAliveInterval > 0 && Number.isFinite(keepAliveInterval)) {
      this.#keepAlive = KeepAliveClock.of(options.timeProvider ?? systemTimeProvider, keepAliveInterval);
      this.#keepAlive.add(this);
    }
  }

  /**
   * The body as a web stream, made on first read. A reader that takes frames with
   * {@linkcode SseStream.nextFrame} instead (serve() on Node) never makes one.
   */
  get readable(): ReadableStream<Uint8Array> {
    this.#readable ??= new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
          if (this.#failure) controller.error(this.#failure);
        },
        pull: async (controller) => {
          const frame = await this.#take();
          if (this.#failure) return; // abort() errors the stream; a reader's cancel needs nothing more
          if (frame === undefined) controller.close();
          else controller.enqueue(frame);
        },
        cancel: (reason) => this.cancel(reason),
      },
      { highWaterMark: 0 },
    );
    return this.#readable;
  }

  /**
   * The next frame for the reader, waiting while there is none; `undefined` once the stream ended
   * after `close()`. Rejects with the reason once the stream was cancelled or aborted. One reader
   * at a time, and either this or {@linkcode SseStream.readable}, not both.
   */
  nextFrame(): Promise<Uint8Array | undefined> {
    // Not an async function: an idle stream's reader holds one waiting promise, no suspended frames.
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#head < this.#frames.length || this.#ended) return Promise.resolve(this.#takeNow());
    this.#pullWaiter = deferred();
    return this.#pullWaiter.promise.then(() => this.nextFrame());
  }

  /**
   * The next frame now, `undefined` once the stream ended after `close()`, or {@linkcode NO_FRAME_YET}
   * while there is none: then `reader.frameReady()` is called once (synchronously, from the write,
   * close or cancel that changed the stream) and the reader polls again. Throws the reason once the
   * stream was cancelled or aborted. An idle stream's reader costs one reference, no promise.
   */
  pollFrame(reader: FrameReader): Uint8Array | undefined | typeof NO_FRAME_YET {
    if (this.#failure) throw this.#failure;
    if (this.#head < this.#frames.length || this.#ended) return this.#takeNow();
    this.#frameReader = reader;
    return NO_FRAME_YET;
  }

  /** The reader is gone (the client disconnected): as a cancel of {@linkcode SseStream.readable}. */
  cancel(reason?: unknown): void {
    this.#cancel(
      new CancelledError("The SSE stream was cancelled by its reader (client disconnected)", {
        cause: reason,
      }),
    );
  }

  /** Aborts when the reader cancels (client disconnect) or {@linkcode SseStream.abort} is called. */
  get signal(): AbortSignal {
    if (!this.#abort) {
      this.#abort = new AbortController();
      if (this.#failure) this.#abort.abort(this.#failure);
    }
    return this.#abort.signal;
  }

  /** UTF-8 bytes written and not yet pulled by the reader. */
  get bufferedBytes(): number {
    return this.#bufferedBytes;
  }

  /** Resolves once the stream ended: everything was pulled after `close()`, or it was cancelled or aborted. */
  get closed(): Promise<void> {
    if (this.#closed === undefined) {
      if (this.#isClosed) return SETTLED;
      this.#closed = deferred();
    }
    return this.#closed.promise;
  }

  /** Calls `callback` once the stream ended (at once if it has): as `closed`, with no promise. */
  [WHEN_CLOSED](callback: () => void): void {
    if (this.#isClosed) return callback();
    const earlier = this.#onClosed;
    this.#onClosed = earlier === undefined ? callback : () => {
      earlier();
      callback();
    };
  }

  /**
   * Sends `message` as one JSON `data:` event (a `JsonText` as its text). Same waiting and rejections as
   * {@linkcode SseStream.writeEvent}, plus a `TypeError` when JSON has no text for `message`.
   */
  async write(
    message: unknown,
    options: { id?: string; event?: string; signal?: AbortSignal } = {},
  ): Promise<void> {
    // A BigInt or a cycle rejects this call with JSON's TypeError; a JsonText is its text already.
    const data = message instanceof JsonText ? message.text : JSON.stringify(message);
    if (data === undefined) {
      throw new TypeError(`Cannot send ${typeof message} as an SSE event: JSON has no text for it`);
    }
    return this.writeEvent({ data, id: options.id, event: options.event }, options.signal);
  }

  /**
   * Queues one event. Resolves once it is in the stream; waits first, behind earlier writers, while
   * the stream holds `maxBufferedBytes` or more and this frame does not fit. Rejects with
   * `ClosedError` after `close()`, with `CancelledError` (or the `abort` reason)
   * once the stream is cancelled or aborted, with `signal`'s reason if it aborts while waiting, and
   * with `ProtocolError` for a bad `id`/`event`.
   */
  async writeEvent(event: SseEventInit, signal?: AbortSignal): Promise<void> {
    if (this.#failure) throw this.#failure;
    if (this.#closing) throw new ClosedError("The SSE stream is closed: nothing more can be written");
    signal?.throwIfAborted();
    const frame = ENCODER.encode(encodeSseEvent(event));
    const previous = this.#turn;
    const mine = deferred();
    this.#turn = mine.promise;
    try {
      await previous;
      while (!this.#fits(frame)) {
        if (this.#failure) throw this.#failure;
        await this.#waitForRoom(signal);
      }
      if (this.#failure) throw this.#failure;
      this.#push(frame);
      this.#wroteSinceTick = true;
    } finally {
      mine.resolve();
      if (this.#turn === mine.promise) this.#turn = SETTLED; // nobody queued behind: an idle stream keeps no settled turn
    }
  }

  /**
   * Ends the stream after everything written (and every writer already waiting) has been pulled.
   * Later writes reject with `ClosedError`. Resolves when the stream ended; after a cancel or abort
   * it resolves at once (check {@linkcode SseStream.signal} to tell the two apart).
   */
  async close(): Promise<void> {
    if (!this.#closing) {
      this.#closing = true;
      void this.#turn.then(() => {
        this.#ended = true;
        this.#stopKeepAlive();
        this.#wakePull();
      });
    }
    return this.closed;
  }

  /**
   * Tears the stream down now: the reader sees an error, waiting and later writes reject with
   * `reason`, and {@linkcode SseStream.signal} aborts. Does nothing once the stream ended.
   */
  abort(reason: unknown = new CancelledError("The SSE stream was aborted by the server")): void {
    if (this.#failure || this.#done) return;
    const error = reason instanceof Error
      ? reason
      : new CancelledError(`The SSE stream was aborted by the server: ${String(reason)}`, { cause: reason });
    this.#cancel(error);
    this.#controller?.error(error);
  }

  /** A `Response` with this stream's {@linkcode SseStream.readable} as body and {@linkcode SSE_HEADERS} (status 200 unless `init` says otherwise). */
  response(init: ResponseInit = {}): Response {
    const headers = new Headers(init.headers);
    for (const [name, value] of Object.entries(SSE_HEADERS)) headers.set(name, value);
    return new Response(this.readable, { ...init, headers });
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.abort();
  }

  #fits(frame: Uint8Array): boolean {
    return this.#bufferedBytes === 0 || this.#bufferedBytes + frame.byteLength <= this.maxBufferedBytes;
  }

  async #waitForRoom(signal: AbortSignal | undefined): Promise<void> {
    this.#room ??= deferred();
    if (!signal) return this.#room.promise;
    signal.throwIfAborted();
    let onAbort!: () => void;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      await Promise.race([this.#room.promise, aborted]);
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  #push(frame: Uint8Array): void {
    this.#frames.push(frame);
    this.#bufferedBytes += frame.byteLength;
    this.#wakePull();
  }

  #wakePull(): void {
    const waiter = this.#pullWaiter;
    this.#pullWaiter = undefined;
    waiter?.resolve();
    const reader = this.#frameReader;
    this.#frameReader = undefined;
    reader?.frameReady();
  }

  /** The next frame (its room given back to writers), `undefined` at the end or once failed (see `#failure`). */
  async #take(): Promise<Uint8Array | undefined> {
    for (;;) {
      if (this.#failure) return undefined;
      if (this.#head < this.#frames.length || this.#ended) return this.#takeNow();
      this.#pullWaiter = deferred();
      await this.#pullWaiter.promise;
    }
  }

  /** The oldest frame (its room given back to writers), or `undefined` at the end: one is there, or the stream ended. */
  #takeNow(): Uint8Array | undefined {
    if (this.#head >= this.#frames.length) {
      this.#done = true;
      this.#markClosed();
      return undefined;
    }
    const frame = this.#frames[this.#head]!;
    this.#frames[this.#head++] = undefined as unknown as Uint8Array;
    if (this.#head === this.#frames.length) {
      // Empty again: give back the array's room (an idle stream would keep 17 slots from its first frame).
      this.#frames.length = 0;
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > this.#frames.length) {
      this.#frames = this.#frames.slice(this.#head);
      this.#head = 0;
    }
    this.#bufferedBytes -= frame.byteLength;
    const room = this.#room;
    this.#room = undefined;
    room?.resolve();
    return frame;
  }

  #markClosed(): void {
    if (this.#isClosed) return;
    this.#isClosed = true;
    this.#closed?.resolve();
    const onClosed = this.#onClosed;
    this.#onClosed = undefined;
    onClosed?.();
  }

  #cancel(error: Error): void {
    if (this.#failure) return;
    this.#failure = error;
    this.#closing = true;
    this.#stopKeepAlive();
    this.#frames = [];
    this.#head = 0;
    this.#bufferedBytes = 0;
    this.#room?.resolve();
    this.#wakePull();
    this.#abort?.abort(error);
    this.#onCancel?.(error);
    this.#markClosed();
  }

  /** A keep-alive tick (from the shared clock): a comment when nothing was written since the last one and nothing waits to be read. */
  [KEEP_ALIVE_TICK](): void {
    if (this.#failure || this.#ended) return this.#stopKeepAlive();
    if (!this.#wroteSinceTick && this.#bufferedBytes === 0) this.#push(KEEP_ALIVE.slice());
    this.#wroteSinceTick = false;
  }

  #stopKeepAlive(): void {
    this.#keepAlive?.delete(this);
    this.#keepAlive = undefined;
  }
}
