/**
 * `JsonRpcConnection`: JSON-RPC 2.0 both ways over a {@linkcode NewlineChannel}, with bounded
 * concurrency, backpressure from output to input, cancellation, and a bounded EOF half-close. It
 * composes four parts: {@linkcode PendingCalls} (our requests), {@linkcode InputBacklog} (input read
 * ahead of dispatch), {@linkcode HandlerSlots} (the peer's requests) and {@linkcode Linger} (the way
 * out), driven by one {@linkcode ConnectionLifecycle}.
 * @module
 */
import type { Duplex } from "../stream/duplex.ts";
import { ClosedError, ErrorCodes, JsonRpcError, TransportError, WriteFailedError } from "../wire/errors.ts";
import { errorResponse, type IncomingRequest, idKey, type RequestId } from "../wire/json_rpc_message.ts";
import { NewlineChannel } from "../stream/newline_channel.ts";
import { integerOption, numberOption } from "../stream/options.ts";
import { systemTimeProvider } from "../stream/time_provider.ts";
import { asError } from "./as_error.ts";
import type { JsonRpcConnectionOptions } from "./connection_options.ts";
import { type ConnectionCloseInfo, ConnectionLifecycle } from "./connection_state.ts";
import { HandlerSlots, type NotificationHandler, type RequestContext, type RequestHandler } from "./handler_slots.ts";
import { type BacklogEntry, InputBacklog } from "./input_backlog.ts";
import { Linger, type LingerReason } from "./linger.ts";
import { type CallOptions, PendingCalls } from "./pending_calls.ts";
import type { TransportConnection } from "./transport.ts";
import { watchWrites } from "./write_watch.ts";

export type { ConnectionCloseInfo, IncomingRequest, JsonRpcConnectionOptions, NotificationHandler, RequestContext, RequestHandler, RequestId };
export { nestChannelOptions } from "./connection_options.ts";

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
  readonly #options: JsonRpcConnectionOptions;
  readonly #endOfStreamTimeout: number;
  readonly #handlers = new Map<string, RequestHandler>();
  readonly #notificationHandlers = new Map<string, NotificationHandler>();
  readonly #lifecycle = new ConnectionLifecycle();
  readonly #calls: PendingCalls;
  readonly #backlog: InputBacklog;
  readonly #slots: HandlerSlots;
  readonly #linger: Linger;
  readonly #answerInvalid: boolean;
  readonly #reportBound = (error: Error): void => this.#report(error);
  #inputEnded!: () => void;
  readonly #inputEndedPromise = new Promise<void>((resolve) => (this.#inputEnded = resolve));

  constructor(transport: Duplex | NewlineChannel, options: JsonRpcConnectionOptions = {}) {
    this.#options = options;
    const time = options.timeProvider ?? systemTimeProvider;
    this.#endOfStreamTimeout = numberOption("endOfStreamTimeout", options.endOfStreamTimeout, 5_000);
    const shutdownTimeout = numberOption("shutdownTimeout", options.shutdownTimeout, 5_000);
    const maxConcurrent = integerOption("maxConcurrentRequests", options.maxConcurrentRequests, 256, 1);
    this.#backlog = new InputBacklog(integerOption("maxQueuedInputBytes", options.maxQueuedInputBytes, 64 * 1024, 1));
    this.#transport = transport;
    this.#answerInvalid = options.answerInvalidInput !== false;
    const own = !(transport instanceof NewlineChannel);
    this.channel = own
      ? new NewlineChannel(
        watchWrites(transport, { progress: () => this.#linger.progress(), failed: (cause) => this.#onWriteFailed(cause) }),
        { timeProvider: time, shutdownTimeout: options.shutdownTimeout, ...options.channel },
      )
      : transport;
    const send = this.#send.bind(this);
    const sendFailed = this.#checkOutputFault.bind(this);
    const report = this.#reportBound;
    this.#calls = new PendingCalls({ send, sendFailed, report, cancelled: (id, reason) => this.#sendCancelled(id, reason) });
    const connection = this;
    this.#slots = new HandlerSlots(maxConcurrent, {
      send,
      sendFailed,
      report,
      invoke: (request, context) => this.#invoke(request, context),
      sendOwnError: (reply) => this.#sendOwnError(reply),
      get outputClosed() {
        return connection.channel.outputClosed;
      },
    });
    this.#linger = new Linger({
      channel: this.channel,
      lifecycle: this.#lifecycle,
      slots: this.#slots,
      get quiet() {
        return connection.#quiet;
      },
      untilQuiet: () => this.#untilQuiet(),
      backlog: this.#backlog,
      sendOwnError: (reply) => this.#sendOwnError(reply),
      dropFromBacklog: (match) => this.#dropFromBacklog(match),
      endError: (fallback) => this.#endError(fallback),
      cutOff: (error, info) => this.#teardown(error, info, true),
      finish: (info) => this.#finish(info),
    }, { time, shutdownTimeout, exactProgress: own });
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
    if (this.#lifecycle.move("open")) {
      void this.#readLoop();
      void this.#dispatchLoop();
    }
    return this;
  }

  /** Handlers running now. */
  get activeHandlers(): number {
    return this.#slots.active;
  }

  /** Outgoing requests awaiting a reply. */
  get pendingRequests(): number {
    return this.#calls.size;
  }

  /** True once the connection is fully closed. */
  get isClosed(): boolean {
    return this.#lifecycle.state === "closed";
  }

  /** Resolves with how the connection ended, once it has. */
  get closed(): Promise<ConnectionCloseInfo> {
    return this.#lifecycle.closed;
  }

  /** Resolves when input has ended (EOF, fault or close). */
  get inputEnded(): Promise<void> {
    return this.#inputEndedPromise;
  }

  /**
   * Sends a request and resolves with its result. Rejects with the peer's {@linkcode JsonRpcError},
   * with the signal's reason when `signal` aborts (after sending `notifications/cancelled`), or with
   * a `ClosedError` (or the transport's own error, such as `ProcessExitedError`) when the connection
   * ends first. Never left hanging.
   */
  request<T = unknown>(method: string, params?: unknown, options?: CallOptions): Promise<T> {
    if (!this.#lifecycle.acceptsRequests) return Promise.reject(this.#endError(this.#lifecycle.endError));
    return this.#calls.call<T>(method, params, options);
  }

  /** Sends a notification; resolves once it is queued for output. */
  async notify(method: string, params?: unknown): Promise<void> {
    if (this.#lifecycle.state === "closed") throw this.#endError(this.#lifecycle.endError);
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
    this.#beginLinger("closed", 0);
    return this.#lifecycle.closed;
  }

  /** Tears down at once: nothing more is written, pending requests and handlers are ended. */
  async abort(reason: unknown = new ClosedError("The connection was aborted")): Promise<ConnectionCloseInfo> {
    this.#fault(reason instanceof Error ? reason : new ClosedError(String(reason)));
    return this.#lifecycle.closed;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /**
   * Reads input into the backlog until it is full, then waits. Replies to our own requests and
   * `notifications/cancelled` take effect as they are read (neither needs a slot or output room, and
   * a handler at the limit may be waiting for exactly those). EOF right behind a few unread messages
   * is still seen, so the EOF bounds apply even while output is backed up.
   */
  async #readLoop(): Promise<void> {
    const life = this.#lifecycle;
    try {
      for (;;) {
        while (this.#backlog.full && life.reading) await this.#backlog.changed.wait();
        if (!life.reading) return;
        const item = await this.channel.read();
        if (!life.reading) return;
        if (item === undefined) break;
        const now = this.#backlog.admit(item, this.#answerInvalid, this.#reportBound);
        if (now === undefined) continue;
        if (now.kind === "notification") this.#notification(now.method, now.params);
        else this.#calls.settle(now);
      }
    } catch (error) {
      if (life.reading) this.#fault(error instanceof Error ? error : new TransportError("closed", String(error)));
      return;
    } finally {
      this.#backlog.changed.fire();
    }
    this.#inputEnded();
    this.#beginLinger("eof", this.#endOfStreamTimeout);
  }

  /** Removes backlog entries that match; waiters for a slot or a quiet connection look again. */
  #dropFromBacklog(match: (entry: BacklogEntry) => boolean): BacklogEntry[] {
    const dropped = this.#backlog.drop(match);
    if (dropped.length > 0) this.#slots.freed.fire();
    return dropped;
  }

  /**
   * Dispatches the backlog in input order: each entry waits while the output queue is full, and a
   * request also waits for a free slot (`maxConcurrentRequests`); nothing is rejected for either.
   */
  async #dispatchLoop(): Promise<void> {
    const life = this.#lifecycle;
    const channel = this.channel;
    for (;;) {
      if (!life.dispatching) return;
      const entry = this.#backlog.head;
      if (entry === undefined) {
        if (!life.reading) return; // input ended and everything read was dispatched
        await this.#backlog.changed.wait();
        continue;
      }
      // The channel wakes room waiters on every completed block, every sender leaving, and teardown.
      while (channel.outputFull && !channel.outputClosed && life.dispatching) await channel.waitForOutputRoom();
      this.#checkOutputFault();
      if (this.#backlog.head !== entry) continue; // cancelled or dropped meanwhile
      if (!life.dispatching) return;
      if (entry.request && this.#slots.full) {
        await this.#slots.freed.wait(); // fired when a handler ends and when the backlog loses entries
        continue;
      }
      this.#backlog.shift();
      try {
        if (entry.reply) await this.#sendOwnError(entry.reply);
        else if (entry.notification) this.#notification(entry.notification.method, entry.notification.params);
        else if (entry.request) await this.#dispatchRequest(entry.request, entry.key!);
      } catch (error) {
        this.#report(asError(error)); // e.g. a throwing isBarrier: the loop goes on
      }
      this.#slots.freed.fire(); // the linger waits for the backlog to empty too
    }
  }

  /** Every message the connection writes goes through here. */
  #send(message: Record<string, unknown>, signal?: AbortSignal): Promise<void> {
    // Into an empty queue nothing was pending: the no-progress deadline starts now.
    if (this.channel.queuedOutputBytes === 0 && !this.channel.outputFull) this.#linger.progress();
    return this.channel.send(message, signal);
  }

  async #sendOwnError(reply: Record<string, unknown>): Promise<void> {
    try {
      await this.#send(reply);
    } catch {
      this.#checkOutputFault(); // a closed output owes nobody a reply; a broken one is a fault
    }
  }

  #sendCancelled(id: RequestId, reason: unknown): void {
    if (this.channel.outputClosed) return;
    const text = reason instanceof Error ? reason.message : reason === undefined ? "cancelled" : String(reason);
    // Best effort: the caller already has its rejection; a lost cancel only costs the peer some work.
    this.notify("notifications/cancelled", { requestId: id, reason: text }).catch(() => {});
  }

  #invoke(request: IncomingRequest, context: RequestContext): unknown {
    const handler = this.#handlers.get(request.method);
    if (handler) return handler(request.params, context);
    if (this.#options.onRequest) return this.#options.onRequest(request, context);
    throw new JsonRpcError(ErrorCodes.MethodNotFound, `Method not found: ${request.method}`);
  }

  /** Starts a handler; an admission barrier is awaited until its reply is queued. */
  async #dispatchRequest(request: IncomingRequest, key: string): Promise<void> {
    if (this.#slots.has(key)) {
      this.#report(new TransportError("protocol", `Request id ${JSON.stringify(request.id)} is already in flight`));
      return this.#sendOwnError(errorResponse(request.id, ErrorCodes.InvalidRequest, `Invalid request: id ${JSON.stringify(request.id)} is already in flight`));
    }
    const run = this.#slots.run(request, key);
    let barrier = false;
    try {
      barrier = this.#options.isBarrier?.(request) === true;
    } catch (error) {
      this.#report(asError(error));
    }
    if (barrier) await run;
  }

  #notification(method: string, params: unknown): void {
    if (method === "notifications/cancelled") {
      const requestId = (params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof requestId === "string" || typeof requestId === "number") {
        const key = idKey(requestId);
        this.#dropFromBacklog((entry) => entry.key === key); // never dispatched, never answered
        this.#slots.cancelByPeer(key, requestId);
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

  // ---- ending ----

  get #quiet(): boolean {
    return this.#slots.active === 0 && this.#backlog.length === 0;
  }

  async #untilQuiet(): Promise<void> {
    while (!this.#quiet && this.#lifecycle.state !== "closed") await this.#slots.freed.wait();
  }

  /** Input EOF (grace `endOfStreamTimeout`) or the owner's close (no grace): rejects pending calls, then lingers. */
  #beginLinger(reason: LingerReason, grace: number): void {
    if (!this.#lifecycle.move(reason === "eof" ? "eof" : "stopping")) return;
    this.#slots.freed.fire();
    const endError = reason === "eof" ? this.#endError() : new ClosedError("The connection was closed by its owner");
    this.#lifecycle.endError ??= endError;
    this.#calls.rejectAll(endError);
    void this.#linger.run(reason, grace);
  }

  /** A write to the underlying stream failed: a fault now, whether or not anyone is sending. */
  #onWriteFailed(cause: unknown): void {
    if (this.#lifecycle.state !== "closed") this.#fault(this.channel.failure ?? new WriteFailedError({ cause }));
  }

  #checkOutputFault(): void {
    const failure = this.channel.failure;
    if (failure && this.#lifecycle.state !== "closed") this.#fault(failure);
  }

  /** Transport failure: no grace, nothing more written, everything pending ended now. */
  #fault(error: Error): void {
    const endError = this.#endError(error);
    if (this.#lifecycle.state !== "closed") this.#lifecycle.endError ??= endError;
    this.#teardown(error, { reason: "fault", error: endError, drain: "aborted" }, false);
  }

  /** Ends everything now; a stalled reader's outcome (`claim`) wins over a drain that ends later. */
  #teardown(error: Error, info: ConnectionCloseInfo, claim: boolean): void {
    if (!this.#lifecycle.move("closed")) return;
    if (claim) this.#lifecycle.claim(info);
    this.#dropFromBacklog(() => true);
    const endError = this.#endError(error);
    this.#calls.rejectAll(endError);
    this.#slots.abortAll(claim ? error : endError);
    this.#slots.freed.fire();
    void this.channel
      .abort(error)
      .catch((cause: unknown) => this.#report(asError(cause)))
      .then(() => this.#finish(info));
  }

  #finish(info: ConnectionCloseInfo): void {
    this.#lifecycle.move("closed");
    this.#linger.cancel();
    this.#inputEnded();
    this.#calls.rejectAll(this.#endError());
    this.#slots.freed.fire();
    this.#lifecycle.finish(info);
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
      // A failing reporter must not break the connection, and has nowhere else to report to.
    }
  }
}
