/**
 * `JsonRpcConnection`: JSON-RPC 2.0 both ways over a {@linkcode NewlineChannel}, with bounded
 * concurrency, backpressure from output to input, cancellation, and a bounded EOF half-close.
 * @module
 */
import { deferred, wakeUp } from "../stream/deferred.ts";
import type { Duplex } from "../stream/duplex.ts";
import { asError, CancelledError, ClosedError, ErrorCodes, isTransportError, JsonRpcError, ParseError, ProtocolError, TimeoutError, WriteFailedError } from "../wire/errors.ts";
import {
  type ClassifiedMessage,
  classifyMessage,
  errorResponse,
  errorResponseFor,
  type IncomingRequest,
  idKey,
  type RequestId,
} from "../wire/json_rpc_message.ts";
import type { InputLine } from "../stream/line_splitter.ts";
import { type DestroyableDuplex, NewlineChannel, type NewlineChannelOptions } from "../stream/newline_channel.ts";
import { integerOption, numberOption } from "../stream/options.ts";
import { systemTimeProvider, type TimeProvider, type TimerHandle } from "../stream/time_provider.ts";
import type { TransportConnection } from "./transport.ts";

export type { IncomingRequest, RequestId };

/** What a request handler gets besides the params. */
export interface RequestContext {
  readonly id: RequestId;
  readonly method: string;
  /** Aborted on `notifications/cancelled` for this id, after the EOF grace period, and on close. */
  readonly signal: AbortSignal;
  /** Sends a notification tied to this request; a no-op once the request is done or cancelled. */
  notify(method: string, params?: unknown): Promise<void>;
}

/** Answers one request; the value becomes `result`, a thrown {@linkcode JsonRpcError} the error. */
export type RequestHandler = (params: unknown, context: RequestContext) => unknown;
/** Handles one notification. */
export type NotificationHandler = (params: unknown) => unknown;

/** Options of {@linkcode JsonRpcConnection}; the channel options apply when it builds its own channel. */
export interface JsonRpcConnectionOptions extends NewlineChannelOptions {
  /** Grace for running handlers after input EOF. Default 5 000 ms. */
  endOfStreamTimeout?: number;
  /**
   * After the grace (or on close): the wait for handlers. Also the no-progress deadline of the whole
   * linger: output with bytes pending that completes no block write for this long is cut off, even
   * while handlers are still running. Default 5 000 ms.
   */
  shutdownTimeout?: number;
  /** Handlers running at once; at the limit requests wait (in the input backlog, then in the pipe). Default 256. */
  maxConcurrentRequests?: number;
  /**
   * Input read ahead of dispatch, in UTF-16 code units plus a small per-message overhead. While
   * output is full or handlers are at the limit, reading stops once this much waits, so memory stays
   * bounded and the peer's pipe fills; the read-ahead lets EOF behind a few waiting messages be seen.
   * One larger message still enters an empty backlog. Default 64 KiB.
   */
  maxQueuedInputBytes?: number;
  /** The clock of every deadline. Default: the system clock. */
  timeProvider?: TimeProvider;
  /** Fallback for requests without a handler from `handle()`. Default: -32601. */
  onRequest?: (request: IncomingRequest, context: RequestContext) => unknown;
  /** Fallback for notifications without a handler from `onNotification()`. */
  onNotification?: (method: string, params: unknown) => unknown;
  /** A request for which this is true is an admission barrier: its reply is queued before the next input is dispatched. */
  isBarrier?: (request: IncomingRequest) => boolean;
  /** Every bad thing that is nobody's exception: bad input, unknown reply ids, handler failures. */
  onReport?: (error: Error) => void;
  /**
   * Answer bad input lines (invalid JSON or UTF-8, oversize, not JSON-RPC) with an error reply
   * (`true`, default), or only report them (`false`: what a client does with a server's stdout
   * banner, which a strict legacy server must not be answered for before `initialize`).
   */
  answerInvalidInput?: boolean;
}

/** How and why a connection closed. */
export interface ConnectionCloseInfo {
  /** `eof`: the peer ended its output; `closed`: the owner closed; `fault`: the transport failed. */
  reason: "eof" | "closed" | "fault";
  error?: Error;
  /** How the output drain ended. */
  drain?: string;
}

/** A request being handled. Its `AbortController` is made only when someone asks for the signal. */
class InflightRequest {
  cancelledByPeer = false;
  done = false;
  #controller: AbortController | undefined;
  #abortedWith: { reason: unknown } | undefined;

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#abortedWith) this.#controller.abort(this.#abortedWith.reason);
    }
    return this.#controller.signal;
  }

  get aborted(): boolean {
    return this.#abortedWith !== undefined;
  }

  abort(reason: unknown): void {
    if (this.#abortedWith) return;
    this.#abortedWith = { reason };
    this.#controller?.abort(reason);
  }
}

interface PendingCall {
  method: string;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * One JSON-RPC peer. Requests from the other side run concurrently, at most
 * `maxConcurrentRequests` at once; replies leave in completion order.
 *
 * @example
 * ```ts
 * const connection = new JsonRpcConnection(duplex)
 *   .handle("add", ({ a, b }: any) => a + b)
 *   .start();
 * const sum = await connection.request("add", { a: 1, b: 2 });
 * await connection.close();
 * ```
 */
export class JsonRpcConnection implements AsyncDisposable {
  readonly channel: NewlineChannel;
  readonly #transport: Duplex | NewlineChannel;
  readonly #time: TimeProvider;
  readonly #endOfStreamTimeout: number;
  readonly #shutdownTimeout: number;
  readonly #maxConcurrent: number;
  readonly #options: JsonRpcConnectionOptions;
  readonly #handlers = new Map<string, RequestHandler>();
  readonly #notificationHandlers = new Map<string, NotificationHandler>();
  readonly #inflight = new Map<string, InflightRequest>();
  readonly #pending = new Map<string, PendingCall>();
  readonly #cancelledIds = new Set<string>();
  /** Whether `channel` writes through our write watcher (exact progress and failure times). */
  readonly #watchesWrites: boolean;
  /** When the no-progress deadline of the linger last restarted. */
  #outputClock = 0;
  #outputTimer: TimerHandle | undefined;
  #stallInfo: ConnectionCloseInfo | undefined;
  /** Why the connection ended, for calls made afterwards. */
  #endedWith: Error | undefined;
  #nextId = 1;
  #active = 0;
  #slotFreed = wakeUp();
  readonly #sendSettled = wakeUp();
  /** Input read and not yet dispatched, in order; bounded by `maxQueuedInputBytes`. */
  readonly #backlog: BacklogEntry[] = [];
  #backlogBytes = 0;
  readonly #backlogChanged = wakeUp();
  readonly #maxQueuedInputBytes: number;
  #inputDone = false;
  /** False once the EOF grace ran out or the connection closed: nothing more is dispatched. */
  #admitting = true;
  #state: "new" | "open" | "eof" | "closing" | "closed" = "new";
  #closeInfo: ConnectionCloseInfo | undefined;
  readonly #closed = deferred<ConnectionCloseInfo>();
  readonly #inputEnded = deferred<void>();
  #shutdown: Promise<void> | undefined;

  constructor(transport: Duplex | NewlineChannel, options: JsonRpcConnectionOptions = {}) {
    this.#options = options;
    this.#time = options.timeProvider ?? systemTimeProvider;
    this.#endOfStreamTimeout = numberOption("endOfStreamTimeout", options.endOfStreamTimeout, 5_000);
    this.#shutdownTimeout = numberOption("shutdownTimeout", options.shutdownTimeout, 5_000);
    this.#maxConcurrent = integerOption("maxConcurrentRequests", options.maxConcurrentRequests, 256, 1);
    this.#maxQueuedInputBytes = integerOption("maxQueuedInputBytes", options.maxQueuedInputBytes, 64 * 1024, 1);
    this.#transport = transport;
    this.#watchesWrites = !(transport instanceof NewlineChannel);
    this.channel = transport instanceof NewlineChannel
      ? transport
      : new NewlineChannel(
        watchWrites(transport, {
          progress: () => (this.#outputClock = this.#time.now()),
          failed: (cause) => this.#onWriteFailed(cause),
        }),
        { ...options, timeProvider: this.#time },
      );
  }

  /** Registers the handler of `method` (replacing any earlier one). */
  handle(method: string, handler: RequestHandler): this {
    this.#handlers.set(method, handler);
    return this;
  }

  /** Registers the handler of notification `method` (replacing any earlier one). */
  onNotification(method: string, handler: NotificationHandler): this {
    this.#notificationHandlers.set(method, handler);
    return this;
  }

  /** Starts reading input. Idempotent. */
  start(): this {
    if (this.#state === "new") {
      this.#state = "open";
      void this.#readLoop();
      void this.#dispatchLoop();
    }
    return this;
  }

  /** Handlers running now. */
  get activeHandlers(): number {
    return this.#active;
  }

  /** Outgoing requests awaiting a reply. */
  get pendingRequests(): number {
    return this.#pending.size;
  }

  /** True once the connection is fully closed. */
  get isClosed(): boolean {
    return this.#state === "closed";
  }

  /** Resolves with how the connection ended, once it has. */
  get closed(): Promise<ConnectionCloseInfo> {
    return this.#closed.promise;
  }

  /** Resolves when input has ended (EOF, fault or close). */
  get inputEnded(): Promise<void> {
    return this.#inputEnded.promise;
  }

  /**
   * Sends a request and resolves with its result. Rejects with the peer's {@linkcode JsonRpcError},
   * with the signal's reason when `signal` aborts (after sending `notifications/cancelled`), or with
   * a `ClosedError` (or the transport's own error, such as `ProcessExitedError`) when the connection
   * ends first. Never left hanging.
   */
  request<T = unknown>(method: string, params?: unknown, options: { signal?: AbortSignal; id?: RequestId } = {}): Promise<T> {
    const { signal } = options;
    if (this.#state === "eof" || this.#state === "closing" || this.#state === "closed") {
      return Promise.reject(this.#endError(this.#endedWith));
    }
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = options.id ?? this.#nextId++;
    const key = idKey(id);
    if (this.#pending.has(key)) return Promise.reject(new ProtocolError(`Request id ${JSON.stringify(id)} is already awaiting a reply`));
    return new Promise<T>((resolve, reject) => {
      let sending: Promise<void> | undefined;
      const onAbort = (): void => {
        if (!this.#pending.delete(key)) return;
        this.#rememberCancelled(key);
        const reason = signal!.reason;
        reject(reason);
        // Tell the peer only when the request was queued: the send settles either way, and a send
        // that was still waiting for room rejects with the same signal, so nothing was written.
        void sending?.then(
          () => this.#sendCancelled(id, reason),
          () => {},
        );
      };
      const cleanup = (): void => signal?.removeEventListener("abort", onAbort);
      this.#pending.set(key, {
        method,
        resolve: (v) => (cleanup(), resolve(v as T)),
        reject: (e) => (cleanup(), reject(e)),
      });
      signal?.addEventListener("abort", onAbort, { once: true });
      const message: Record<string, unknown> = { jsonrpc: "2.0", id, method };
      if (params !== undefined) message.params = params;
      sending = this.#send(message, signal);
      sending.then(
        () => {},
        (error) => {
          const call = this.#pending.get(key);
          if (!call) return;
          this.#pending.delete(key);
          call.reject(signal?.aborted ? signal.reason : error);
          this.#checkOutputFault();
        },
      );
    });
  }

  /** Ids we cancelled recently: a late reply to one of them is expected and dropped without a report. */
  #rememberCancelled(key: string): void {
    this.#cancelledIds.add(key);
    if (this.#cancelledIds.size > 1024) this.#cancelledIds.delete(this.#cancelledIds.values().next().value!);
  }

  #sendCancelled(id: RequestId, reason: unknown): void {
    if (this.channel.outputClosed) return;
    const text = reason instanceof Error ? reason.message : reason === undefined ? "cancelled" : String(reason);
    this.notify("notifications/cancelled", { requestId: id, reason: text }).catch(() => {});
  }

  /** Sends a notification; resolves once it is queued for output. */
  async notify(method: string, params?: unknown): Promise<void> {
    if (this.#state === "closed") throw this.#endError(this.#endedWith);
    const message: Record<string, unknown> = { jsonrpc: "2.0", method };
    if (params !== undefined) message.params = params;
    try {
      await this.#send(message);
    } catch (error) {
      this.#checkOutputFault();
      throw error;
    }
  }

  /**
   * Closes by the owner's choice: no grace period. Reading stops, pending requests are rejected,
   * handler signals are aborted, handlers get at most `shutdownTimeout` to finish, and output drains
   * within the same bound (each completed block resets the no-progress deadline).
   */
  async close(): Promise<ConnectionCloseInfo> {
    if (this.#state === "new") this.#state = "open";
    this.#beginShutdown("closed", 0);
    return this.#closed.promise;
  }

  /** Tears down at once: nothing more is written, pending requests and handlers are ended. */
  async abort(reason: unknown = new ClosedError("The connection was aborted")): Promise<ConnectionCloseInfo> {
    this.#fault(reason instanceof Error ? reason : new ClosedError(String(reason)));
    return this.#closed.promise;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  // ---- input ----

  /**
   * Reads input into a small bounded backlog (`maxQueuedInputBytes`, one larger message into an empty
   * backlog). Replies to our own requests and `notifications/cancelled` take effect as they are read
   * (neither needs a slot or output room, and a handler at the limit may be waiting for exactly
   * those); everything else is dispatched in order by {@linkcode #dispatchLoop}, which waits for
   * output room and for a free slot. When the backlog is full reading stops, so a peer that never
   * reads, or floods requests, fills its pipe and waits. EOF right behind a few unread messages is
   * still seen, so the EOF bounds apply even while output is backed up.
   */
  async #readLoop(): Promise<void> {
    try {
      for (;;) {
        while (this.#backlogBytes > 0 && this.#backlogBytes >= this.#maxQueuedInputBytes && this.#state === "open") {
          await this.#backlogChanged.wait();
        }
        if (this.#state !== "open") return;
        const item = await this.channel.read();
        if (this.#state !== "open") return;
        if (item === undefined) break;
        this.#accept(item);
      }
    } catch (error) {
      if (this.#state === "open") this.#fault(error instanceof Error ? error : new ClosedError(String(error)));
      return;
    } finally {
      this.#inputDone = true;
      this.#backlogChanged.fire();
    }
    this.#onEndOfInput();
  }

  /** Takes one input event: acts on it now, or queues it for the dispatcher. */
  #accept(item: InputLine): void {
    if (item.kind === "error") {
      this.#report(item.error);
      if (this.#options.answerInvalidInput === false) return;
      const code = item.error.code === "invalid_utf8" ? ErrorCodes.ParseError : ErrorCodes.InvalidRequest;
      return this.#enqueue({ bytes: ENTRY_OVERHEAD_BYTES, reply: errorResponse(undefined, code, item.error.message) });
    }
    let message: ClassifiedMessage;
    try {
      message = classifyMessage(JSON.parse(item.text));
    } catch (cause) {
      this.#report(new ParseError(item.text, { cause }));
      if (this.#options.answerInvalidInput === false) return;
      return this.#enqueue({ bytes: ENTRY_OVERHEAD_BYTES, reply: errorResponse(undefined, ErrorCodes.ParseError, "Parse error: invalid JSON") });
    }
    const bytes = item.text.length + ENTRY_OVERHEAD_BYTES;
    switch (message.kind) {
      case "result":
      case "error":
        return this.#settle(message);
      case "invalid":
        this.#report(new ProtocolError(`Invalid JSON-RPC message: ${message.reason}`));
        if (this.#options.answerInvalidInput === false) return;
        return this.#enqueue({ bytes: ENTRY_OVERHEAD_BYTES, reply: errorResponse(message.id, ErrorCodes.InvalidRequest, `Invalid request: ${message.reason}`) });
      case "notification":
        if (message.method === "notifications/cancelled") return this.#notification(message.method, message.params);
        return this.#enqueue({ bytes, notification: { method: message.method, params: message.params } });
      case "request":
        return this.#enqueue({ bytes, request: message.request, key: idKey(message.request.id) });
    }
  }

  #enqueue(entry: BacklogEntry): void {
    this.#backlog.push(entry);
    this.#backlogBytes += entry.bytes;
    this.#backlogChanged.fire();
  }

  /** Removes backlog entries that match, keeping the byte count right. */
  #dropFromBacklog(match: (entry: BacklogEntry) => boolean): BacklogEntry[] {
    const dropped: BacklogEntry[] = [];
    for (let i = this.#backlog.length - 1; i >= 0; i--) {
      const entry = this.#backlog[i]!;
      if (!match(entry)) continue;
      this.#backlog.splice(i, 1);
      this.#backlogBytes -= entry.bytes;
      dropped.unshift(entry);
    }
    if (dropped.length > 0) {
      this.#backlogChanged.fire();
      this.#slotFreed.fire();
    }
    return dropped;
  }

  /**
   * Dispatches the backlog in input order: each entry waits while the output queue is full, and a
   * request also waits for a free slot (`maxConcurrentRequests`); nothing is rejected for either.
   */
  async #dispatchLoop(): Promise<void> {
    for (;;) {
      if (!this.#admitting || (this.#state !== "open" && this.#state !== "eof")) return;
      const entry = this.#backlog[0];
      if (entry === undefined) {
        if (this.#inputDone) return;
        await this.#backlogChanged.wait();
        continue;
      }
      await this.#waitForOutputRoom();
      if (this.#backlog[0] !== entry) continue; // cancelled or dropped meanwhile
      if (!this.#admitting || (this.#state !== "open" && this.#state !== "eof")) return;
      if (entry.request && this.#active >= this.#maxConcurrent) {
        await Promise.race([this.#slotFreed.wait(), this.#backlogChanged.wait()]);
        continue;
      }
      this.#backlog.shift();
      this.#backlogBytes -= entry.bytes;
      this.#backlogChanged.fire();
      try {
        if (entry.reply) await this.#sendOwnError(entry.reply);
        else if (entry.notification) this.#notification(entry.notification.method, entry.notification.params);
        else if (entry.request) await this.#dispatchRequest(entry.request, entry.key!);
      } catch (error) {
        this.#report(asError(error)); // e.g. a throwing isBarrier: the loop goes on
      }
      this.#slotFreed.fire(); // the shutdown waits for the backlog to empty too
    }
  }

  /** Waits while a sender would wait for output room. */
  async #waitForOutputRoom(): Promise<void> {
    // `NewlineChannel.waitForOutputRoom` wakes only on block progress; a sender that passed through
    // without waiting (it counts as "waiting" meanwhile) signals nothing when it leaves. Our own sends
    // signal `#sendSettled`, so a stalled reader cannot keep input paused below the bound.
    while (this.channel.outputFull && !this.channel.outputClosed && (this.#state === "open" || this.#state === "eof")) {
      const settled = this.#sendSettled.wait();
      await Promise.race([this.channel.waitForOutputRoom(), settled]);
    }
    this.#checkOutputFault();
  }

  /** Every message the connection writes goes through here. */
  #send(message: Record<string, unknown>, signal?: AbortSignal): Promise<void> {
    // Into an empty queue nothing was pending: the no-progress deadline starts now.
    if (this.channel.queuedOutputBytes === 0 && !this.channel.outputFull) this.#outputClock = this.#time.now();
    return this.channel.send(message, signal).finally(() => this.#sendSettled.fire());
  }

  async #dispatchRequest(request: IncomingRequest, key: string): Promise<void> {
    if (this.#inflight.has(key)) {
      this.#report(new ProtocolError(`Request id ${JSON.stringify(request.id)} is already in flight`));
      await this.#sendOwnError(errorResponse(request.id, ErrorCodes.InvalidRequest, `Invalid request: id ${JSON.stringify(request.id)} is already in flight`));
      return;
    }
    await this.#admit(request, key);
  }

  /** Starts a handler; an admission barrier is awaited until its reply is queued. */
  async #admit(request: IncomingRequest, key: string): Promise<void> {
    if (this.#state !== "open" && this.#state !== "eof") return;
    const run = this.#runHandler(request, key);
    let barrier = false;
    try {
      barrier = this.#options.isBarrier?.(request) === true;
    } catch (error) {
      this.#report(asError(error));
    }
    if (barrier) await run;
  }

  #settle(message: { kind: "result"; id: RequestId; result: unknown } | { kind: "error"; id: RequestId | undefined; error: JsonRpcError }): void {
    if (message.kind === "error" && message.id === undefined) {
      this.#report(new ProtocolError(`Error response without an id: ${message.error.code} ${message.error.message}`, { cause: message.error }));
      return;
    }
    const key = idKey(message.id!);
    const call = this.#pending.get(key);
    if (!call) {
      if (this.#cancelledIds.delete(key)) return; // a late reply to a call we cancelled
      this.#report(new ProtocolError(`Reply to unknown request id ${JSON.stringify(message.id)}: dropped`));
      return;
    }
    this.#pending.delete(key);
    if (message.kind === "result") call.resolve(message.result);
    else call.reject(message.error);
  }

  #notification(method: string, params: unknown): void {
    if (method === "notifications/cancelled") {
      const requestId = (params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof requestId === "string" || typeof requestId === "number") {
        const key = idKey(requestId);
        this.#dropFromBacklog((entry) => entry.key === key); // never dispatched, never answered
        const entry = this.#inflight.get(key);
        if (entry && !entry.done) {
          entry.cancelledByPeer = true;
          entry.abort(new CancelledError(`Request ${JSON.stringify(requestId)} was cancelled by the peer`));
        }
      }
    }
    const handler = this.#notificationHandlers.get(method);
    try {
      const result = handler ? handler(params) : this.#options.onNotification?.(method, params);
      if (result instanceof Promise) result.catch((error) => this.#report(asError(error)));
    } catch (error) {
      this.#report(asError(error));
    }
  }

  #runHandler(request: IncomingRequest, key: string): Promise<void> {
    const entry = new InflightRequest();
    this.#inflight.set(key, entry);
    this.#active++;
    const context: RequestContext = {
      id: request.id,
      method: request.method,
      get signal() {
        return entry.signal;
      },
      notify: async (method, params) => {
        if (entry.done || entry.aborted || this.channel.outputClosed) return;
        const message: Record<string, unknown> = { jsonrpc: "2.0", method };
        if (params !== undefined) message.params = params;
        await this.#send(message, entry.signal).catch(() => this.#checkOutputFault());
      },
    };
    const handler = this.#handlers.get(request.method);
    return (async () => {
      let reply: Record<string, unknown>;
      try {
        let result: unknown;
        if (handler) result = await handler(request.params, context);
        else if (this.#options.onRequest) result = await this.#options.onRequest(request, context);
        else throw new JsonRpcError(ErrorCodes.MethodNotFound, `Method not found: ${request.method}`);
        reply = { jsonrpc: "2.0", id: request.id, result: result === undefined ? {} : result };
      } catch (error) {
        if (!(error instanceof JsonRpcError) && !entry.aborted) this.#report(asError(error));
        reply = errorResponseFor(request.id, error);
      }
      entry.done = true;
      if (entry.cancelledByPeer || this.channel.outputClosed) return;
      try {
        await this.#send(reply);
      } catch (error) {
        if (this.channel.outputClosed || isTransportError(error)) return this.#checkOutputFault();
        // The result could not be serialized (a BigInt, a cycle): the caller still gets an answer.
        this.#report(asError(error));
        await this.#sendOwnError(errorResponse(request.id, ErrorCodes.InternalError, `Internal error: the result could not be serialized (${asError(error).message})`));
      }
    })().finally(() => {
      this.#inflight.delete(key);
      this.#active--;
      this.#slotFreed.fire();
    });
  }

  async #sendOwnError(reply: Record<string, unknown>): Promise<void> {
    try {
      await this.#send(reply);
    } catch {
      this.#checkOutputFault();
    }
  }

  // ---- ending ----

  #onEndOfInput(): void {
    this.#inputEnded.resolve();
    if (this.#state !== "open") return;
    this.#beginShutdown("eof", this.#endOfStreamTimeout);
  }

  /** Rejects pending calls, gives handlers `grace`, aborts them, waits `shutdownTimeout`, drains output. */
  #beginShutdown(reason: "eof" | "closed", grace: number): void {
    if (this.#shutdown) return;
    this.#state = reason === "eof" ? "eof" : "closing";
    this.#slotFreed.fire();
    const endError = reason === "eof" ? this.#endError() : new ClosedError("The connection was closed by its owner");
    this.#endedWith ??= endError;
    this.#rejectPending(endError);
    this.#watchOutputProgress(reason);
    this.#shutdown = (async () => {
      const start = this.#time.now();
      const budget = grace + this.#shutdownTimeout;
      if (grace > 0) await this.#handlersDone(grace);
      this.#stopAdmitting(reason, grace);
      if (this.#active > 0) {
        const abortReason = reason === "eof"
          ? new TimeoutError(`Handler still running ${grace} ms after input ended (endOfStreamTimeout)`, grace)
          : new ClosedError("The connection was closed by its owner");
        for (const entry of this.#inflight.values()) entry.abort(abortReason);
        await this.#handlersDone(Math.max(0, start + budget - this.#time.now()));
      }
      if (this.#state === "closed") return;
      this.#state = "closing";
      const remaining = Math.max(0, start + budget - this.#time.now());
      const drain = await this.channel.close({ idleTimeout: this.#shutdownTimeout, totalTimeout: remaining });
      if (this.#active > 0) for (const entry of this.#inflight.values()) entry.abort(endError);
      this.#finish({ reason, drain, error: drain === "failed" ? this.channel.failure : undefined });
    })().catch((error: unknown) => this.#finish({ reason, error: asError(error) }));
  }

  /**
   * The no-progress deadline of the whole linger, handler phase included: output that has bytes
   * pending and completes no block write for `shutdownTimeout` is a stalled reader. Output is torn
   * down and the connection ends, even while handlers are still waiting for output room (the drain's
   * own deadline only starts once they are done). The clock restarts at the start of the linger, at
   * every completed block write, and whenever a message enters an empty queue.
   */
  #watchOutputProgress(reason: "eof" | "closed"): void {
    const limit = this.#shutdownTimeout;
    if (!Number.isFinite(limit)) return;
    this.#outputClock = this.#time.now();
    let blocksSeen = this.channel.blocksWritten;
    const check = (): void => {
      if (this.#state === "closed") return;
      const now = this.#time.now();
      if (this.channel.blocksWritten !== blocksSeen) {
        blocksSeen = this.channel.blocksWritten;
        if (!this.#watchesWrites) this.#outputClock = now; // a channel we did not wrap: progress time is approximate
      }
      const pending = this.channel.queuedOutputBytes > 0 || this.channel.outputFull;
      const due = this.#outputClock + limit;
      if (pending && now >= due) return this.#stalled(reason, limit);
      this.#outputTimer = this.#time.setTimer(check, pending ? due - now : limit);
    };
    this.#outputTimer = this.#time.setTimer(check, limit);
  }

  #stalled(reason: "eof" | "closed", limit: number): void {
    const error = new TimeoutError(`Output made no progress for shutdownTimeout (${limit} ms): the reader is stalled`, limit);
    this.#state = "closed";
    this.#admitting = false;
    this.#dropFromBacklog(() => true);
    for (const entry of this.#inflight.values()) entry.abort(error);
    this.#rejectPending(this.#endError(error));
    this.#slotFreed.fire();
    this.#stallInfo = { reason, drain: "idle_timeout", error };
    void this.channel
      .abort(error)
      .catch(() => {})
      .then(() => this.#finish(this.#stallInfo!));
  }

  /**
   * Ends dispatch. After the EOF grace, requests still waiting in the backlog are answered with an
   * error (they never started; the peer is not left guessing); on close they are dropped.
   */
  #stopAdmitting(reason: "eof" | "closed", grace: number): void {
    this.#admitting = false;
    const left = this.#dropFromBacklog(() => true);
    if (reason !== "eof" || this.#state === "closed") return;
    for (const entry of left) {
      if (entry.request) {
        const message = `Request not started: input ended and endOfStreamTimeout (${grace} ms) ran out before a slot or output room was free`;
        void this.#sendOwnError(errorResponse(entry.request.id, ErrorCodes.InternalError, message));
      } else if (entry.reply) {
        void this.#sendOwnError(entry.reply);
      }
    }
  }

  #handlersDone(timeoutMs: number): Promise<void> {
    if (this.#active === 0 && this.#backlog.length === 0) return Promise.resolve();
    return new Promise((resolve) => {
      let timer: TimerHandle | undefined;
      let finished = false;
      const finish = (): void => {
        if (finished) return;
        finished = true;
        timer?.cancel();
        resolve();
      };
      timer = this.#time.setTimer(finish, timeoutMs);
      void (async () => {
        while (!finished && (this.#active > 0 || this.#backlog.length > 0) && this.#state !== "closed") await this.#slotFreed.wait();
        finish();
      })();
    });
  }

  /** A write to the underlying stream failed: a fault now, whether or not anyone is sending. */
  #onWriteFailed(cause: unknown): void {
    if (this.#state === "closed") return;
    this.#fault(this.channel.failure ?? new WriteFailedError({ cause }));
  }

  #checkOutputFault(): void {
    const failure = this.channel.failure;
    if (failure && this.#state !== "closed") this.#fault(failure);
  }

  /** Transport failure: no grace, nothing more written, everything pending ended now. */
  #fault(error: Error): void {
    if (this.#state === "closed") return;
    this.#state = "closed";
    this.#admitting = false;
    this.#dropFromBacklog(() => true);
    const endError = this.#endError(error);
    this.#endedWith ??= endError;
    this.#rejectPending(endError);
    for (const entry of this.#inflight.values()) entry.abort(endError);
    this.#slotFreed.fire();
    void this.channel
      .abort(error)
      .catch(() => {})
      .then(() => this.#finish({ reason: "fault", error: endError, drain: "aborted" }));
  }

  #finish(info: ConnectionCloseInfo): void {
    this.#state = "closed";
    this.#outputTimer?.cancel();
    this.#inputEnded.resolve();
    this.#rejectPending(this.#endError());
    this.#slotFreed.fire();
    if (!this.#closeInfo) {
      this.#closeInfo = this.#stallInfo ?? info;
      this.#closed.resolve(this.#closeInfo);
    }
  }

  #rejectPending(error: Error): void {
    const calls = [...this.#pending.values()];
    this.#pending.clear();
    for (const call of calls) call.reject(error);
  }

  /** The error for calls that cannot complete: the transport's own account when it has one. */
  #endError(fallback?: Error): Error {
    const transport = this.#transport as Partial<TransportConnection>;
    const own = typeof transport.closeError === "function" ? transport.closeError() : undefined;
    return own ?? fallback ?? new ClosedError("The connection is closed: the peer ended its output");
  }

  #report(error: Error): void {
    try {
      this.#options.onReport?.(error);
    } catch {
      // A failing reporter must not break the connection.
    }
  }
}

/**
 * The transport with its writable wrapped so that a failed write is seen the moment it happens, not
 * at the next send. The wrapper adds no buffering: the channel awaits each block write, so at most
 * the one block in flight sits in it. Aborting the wrapper aborts the stream at once, also with a
 * write in flight.
 */
function watchWrites(transport: DestroyableDuplex, on: { progress(): void; failed(cause: unknown): void }): DestroyableDuplex {
  const writer = transport.writable.getWriter();
  let controller: WritableStreamDefaultController | undefined;
  writer.closed.catch((cause) => controller?.error(cause));
  const writable = new WritableStream<Uint8Array>({
    start(c) {
      controller = c;
      c.signal?.addEventListener("abort", () => void writer.abort(c.signal.reason).catch(() => {}), { once: true });
    },
    write: (chunk) =>
      writer.write(chunk).then(
        () => on.progress(),
        (cause) => {
          on.failed(cause);
          throw cause;
        },
      ),
    close: () => writer.close(),
    abort: (reason) => writer.abort(reason).catch(() => {}),
  });
  const duplex: DestroyableDuplex = { readable: transport.readable, writable };
  if (typeof transport.destroy === "function") duplex.destroy = (reason) => transport.destroy!(reason);
  return duplex;
}

/** What one waiting input message costs in the backlog's accounting, besides its text. */
const ENTRY_OVERHEAD_BYTES = 64;

/** One input message read and not yet dispatched. */
interface BacklogEntry {
  bytes: number;
  request?: IncomingRequest;
  key?: string;
  notification?: { method: string; params: unknown };
  /** An error reply the connection owes for a bad line. */
  reply?: Record<string, unknown>;
}
