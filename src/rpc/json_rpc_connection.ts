/**
 * `JsonRpcConnection`: JSON-RPC 2.0 both ways over a {@linkcode NewlineChannel}, with bounded
 * concurrency, backpressure from output to input, cancellation, and a bounded EOF half-close. It
 * composes four parts: {@linkcode PendingCalls} (our requests), {@linkcode InputBacklog} (input read
 * ahead of dispatch), {@linkcode HandlerSlots} (the peer's requests) and {@linkcode Linger} (the way
 * out), driven by one {@linkcode ConnectionLifecycle}.
 * @module
 */
import type { Duplex } from "../stream/duplex.ts";
import { asError, ClosedError, WriteFailedError } from "../wire/errors.ts";
import type { IncomingRequest, RequestId } from "../wire/json_rpc_message.ts";
import type { JsonText } from "../wire/json_text.ts";
import { NewlineChannel, watchBlockWrites } from "../stream/newline_channel.ts";
import { integerOption, numberOption } from "../stream/options.ts";
import { systemTimeProvider } from "../stream/time_provider.ts";
import type { JsonRpcConnectionOptions } from "./connection_options.ts";
import { type ConnectionCloseInfo, ConnectionLifecycle } from "./connection_state.ts";
import { endError } from "./end_error.ts";
import { HandlerSlots } from "./handler_slots.ts";
import type { NotificationHandler, RequestContext, RequestHandler } from "./request_context.ts";
import type { SlotHost } from "./slot_host.ts";
import type { BacklogEntry } from "./backlog_entry.ts";
import { InputBacklog } from "./input_backlog.ts";
import { dispatchInput, type PumpHost, readInput } from "./input_pump.ts";
import { failOversizeReply } from "./oversize_reply.ts";
import { Linger, type LingerHost, type LingerReason } from "./linger.ts";
import { type CallHost, PendingCalls } from "./pending_calls.ts";

export type {
  ConnectionCloseInfo,
  IncomingRequest,
  JsonRpcConnectionOptions,
  NotificationHandler,
  RequestContext,
  RequestHandler,
  RequestId,
};
export { nestChannelOptions } from "./connection_options.ts";

/**
 * One JSON-RPC peer. Requests from the other side run concurrently, at most
 * `maxConcurrentRequests` at once; replies leave in completion order.
 *
 * @example
 * ```ts
 * declare const duplex: Duplex; // e.g. stdio() of onemodelcontext/node
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
  readonly #host: PumpHost;
  readonly #report: (error: Error) => void;
  readonly #endOfStreamTimeout: number;
  readonly #lifecycle = new ConnectionLifecycle();
  readonly #calls: PendingCalls;
  readonly #backlog: InputBacklog;
  readonly #slots: HandlerSlots;
  readonly #linger: Linger;
  #inputEnded!: () => void;
  readonly #inputEndedPromise = new Promise<void>((resolve) => (this.#inputEnded = resolve));

  constructor(transport: Duplex | NewlineChannel, options: JsonRpcConnectionOptions = {}) {
    const time = options.timeProvider ?? systemTimeProvider;
    this.#endOfStreamTimeout = numberOption("endOfStreamTimeout", options.endOfStreamTimeout, 5_000);
    const shutdownTimeout = numberOption("shutdownTimeout", options.shutdownTimeout, 5_000);
    const maxConcurrent = integerOption("maxConcurrentRequests", options.maxConcurrentRequests, 256, 1);
    const acceptsBatch = options.acceptsBatch;
    this.#backlog = new InputBacklog(
      integerOption("maxQueuedInputBytes", options.maxQueuedInputBytes, 64 * 1024, 1),
      {
        maxInFlightBytes: integerOption("maxInFlightBytes", options.maxInFlightBytes, 64 * 1024 * 1024, 1),
        acceptsBatch: acceptsBatch ? () => acceptsBatch() === true : undefined,
      },
    );
    this.#transport = transport;
    this.#report = (error) => {
      try {
        options.onReport?.(error);
      } catch {
        // A failing reporter must not break the connection, and has nowhere else to report to.
      }
    };
    const own = !(transport instanceof NewlineChannel);
    this.channel = own
      ? new NewlineChannel(transport, {
        timeProvider: time,
        shutdownTimeout: options.shutdownTimeout,
        onReport: this.#report,
        ...options.channel,
      })
      : transport;
    // Told of each block write as it completes or fails (for a channel of our own: one we were handed has its owner's).
    if (own) {
      watchBlockWrites(this.channel, {
        progress: () => this.#linger.progress(),
        failed: (cause) => this.#onWriteFailed(cause),
      });
    }
    // deno-lint-ignore no-this-alias
    const connection = this;
    // One object serves every part: what each may ask of the connection.
    const host: CallHost & SlotHost & LingerHost & PumpHost = {
      channel: this.channel,
      lifecycle: this.#lifecycle,
      backlog: this.#backlog,
      get slots() {
        return connection.#slots;
      },
      answerInvalid: options.answerInvalidInput !== false,
      get outputClosed() {
        return connection.channel.outputClosed;
      },
      report: this.#report,
      send: (message, signal) => this.#send(message, signal),
      sendOwnError: (reply) => this.#sendOwnError(reply),
      sendFailed: () => this.#checkOutputFault(),
      cancelled: (id, reason) => this.#sendCancelled(id, reason),
      settle: (reply) => this.#calls.settle(reply),
      notification: (method, params, bytes, literal) =>
        this.#slots.notification(method, params, bytes, literal),
      release: (bytes) => this.#backlog.release(bytes),
      oversizeReply: (reply) =>
        failOversizeReply(reply, { calls: this.#calls, fault: (error) => this.#fault(error) }),
      dropFromBacklog: (match) => this.#dropFromBacklog(match),
      endError: (fallback) => this.#endError(fallback),
      fault: (error) => this.#fault(error),
      cutOff: (error, info) => this.#teardown(error, info, true),
      finish: (info) => this.#finish(info),
      endOfInput: () => {
        this.#inputEnded();
        this.#beginLinger("eof", this.#endOfStreamTimeout);
      },
    };
    this.#host = host;
    this.#calls = new PendingCalls(host);
    this.#slots = new HandlerSlots(maxConcurrent, host, options);
    this.#linger = new Linger(host, { time, shutdownTimeout, exactProgress: own });
  }

  /** Registers the handler of `method` (replacing any earlier one). */
  handle(method: string, handler: RequestHandler): this {
    this.#slots.requestHandlers.set(method, handler);
    return this;
  }

  /** Registers the handler of notification `method` (replacing any earlier one). */
  onNotification(method: string, handler: NotificationHandler): this {
    this.#slots.notificationHandlers.set(method, handler);
    return this;
  }

  /** Starts reading input. Idempotent. */
  start(): this {
    if (this.#lifecycle.move("open")) {
      void readInput(this.#host);
      void dispatchInput(this.#host);
    }
    return this;
  }

  /** Handlers running now: request handlers, and notification handlers whose promise has not settled. */
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
  request<T = unknown>(
    method: string,
    params?: unknown,
    options?: { signal?: AbortSignal; id?: RequestId },
  ): Promise<T> {
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

  /** Removes backlog entries that match; waiters for a slot or a quiet connection look again. */
  #dropFromBacklog(match: (entry: BacklogEntry) => boolean): BacklogEntry[] {
    const dropped = this.#backlog.drop(match);
    if (dropped.length > 0) this.#slots.freed.fire();
    return dropped;
  }

  /** Every message the connection writes goes through here. */
  #send(message: Record<string, unknown> | JsonText, signal?: AbortSignal): Promise<void> {
    // Into an empty queue nothing was pending: the no-progress deadline starts now.
    if (this.channel.queuedOutputBytes === 0 && !this.channel.outputFull) this.#linger.progress();
    return this.channel.send(message, signal);
  }

  async #sendOwnError(reply: Record<string, unknown> | JsonText): Promise<void> {
    try {
      await this.#send(reply);
    } catch {
      this.#checkOutputFault(); // a closed output owes nobody a reply; a broken one is a fault
    }
  }

  #sendCancelled(id: RequestId, reason: unknown): void {
    if (this.channel.outputClosed) return;
    const text = reason instanceof Error
      ? reason.message
      : reason === undefined
      ? "cancelled"
      : String(reason);
    // Best effort: the caller already has its rejection; a lost cancel only costs the peer some work.
    this.notify("notifications/cancelled", { requestId: id, reason: text }).catch(() => {});
  }

  // ---- ending ----

  /** Input EOF (grace `endOfStreamTimeout`) or the owner's close (no grace): rejects pending calls, then lingers. */
  #beginLinger(reason: LingerReason, grace: number): void {
    if (!this.#lifecycle.move(reason === "eof" ? "eof" : "stopping")) return;
    this.#slots.freed.fire();
    const endError = reason === "eof"
      ? this.#endError()
      : new ClosedError("The connection was closed by its owner");
    this.#lifecycle.endError ??= endError;
    this.#calls.rejectAll(endError);
    void this.#linger.run(reason, grace);
  }

  /** A write to the underlying stream failed: a fault now, whether or not anyone is sending. */
  #onWriteFailed(cause: unknown): void {
    if (this.#lifecycle.state !== "closed") {
      this.#fault(this.channel.failure ?? new WriteFailedError({ cause }));
    }
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

  #endError(fallback?: Error): Error {
    return endError(this.#transport, fallback);
  }
}
