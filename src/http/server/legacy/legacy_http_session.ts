/**
 * `LegacyHttpSession`: one `Mcp-Session-Id` of the legacy Streamable HTTP transport (2025-03-26 …
 * 2025-11-25): the server's session state, its requests in flight, its server-to-client requests
 * waiting for replies POSTed back, its GET stream, and its idle timer.
 * @module
 */
import type { TimeProvider, TimerHandle } from "../../../stream/time_provider.ts";
import { CancelledError, ClosedError, type JsonRpcError } from "../../../wire/errors.ts";
import { cancelledKey, idKey, type RequestId } from "../../../wire/json_rpc_message.ts";
import type { LegacySession, ServerSession } from "../http_dispatcher.ts";
import type { ResponseChannel } from "../response_channel.ts";

/** A session's GET stream: an `SseStream`, or a `ResumableStream` (which has `connected`). */
export interface GetStream {
  write(message: unknown): Promise<void>;
  close(): Promise<void>;
  readonly closed: Promise<void>;
  /** False while a resumable stream has no client connection (the client left without resuming). */
  readonly connected?: boolean;
}

/** A server-to-client request waiting for its reply. */
interface Waiting {
  promise: Promise<unknown>;
  resolve(value: unknown): void;
  reject(reason: unknown): void;
}

function waiting(): Waiting {
  let resolve!: (value: unknown) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<unknown>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // The promise is awaited once the request is sent; until then a rejection (session end) is not unhandled.
  promise.catch(() => {});
  return { promise, resolve, reject };
}

/** Options of {@linkcode LegacyHttpSession}. */
export interface LegacyHttpSessionOptions {
  /** Milliseconds without a request in flight or an open stream after which the session ends. */
  idleTimeout: number;
  timeProvider: TimeProvider;
  /** Called once when the session ends (for its table to forget it). */
  onEnd: (session: LegacyHttpSession) => void;
}

/**
 * One legacy session. Its `legacy` field is the {@linkcode ServerSession} state dispatch fills on
 * `initialize`. It is idle while no request is in flight and no GET stream is open; after
 * `idleTimeout` of that it ends, like `DELETE`: handlers still running are cancelled, waiting
 * server-to-client requests reject, the GET stream ends.
 */
export class LegacyHttpSession implements ServerSession {
  readonly id: string;
  legacy: LegacySession | undefined = undefined;
  /**
   * The authenticated principal that opened the session (`initialize`), when the request carried one
   * (see `REQUEST_PRINCIPAL`): only requests of the same principal reach it.
   */
  principal: string | undefined = undefined;
  readonly #options: LegacyHttpSessionOptions;
  readonly #inFlight = new Map<string, AbortController>();
  readonly #waiting = new Map<string, Waiting>();
  readonly #ended = new AbortController();
  #nextRequestId = 1;
  #getStream: GetStream | undefined;
  #active = 0;
  #idleTimer: TimerHandle | undefined;

  constructor(id: string, options: LegacyHttpSessionOptions) {
    this.id = id;
    this.#options = options;
    this.#armIdleTimer();
  }

  /** Aborts when the session ends. */
  get signal(): AbortSignal {
    return this.#ended.signal;
  }

  get ended(): boolean {
    return this.#ended.signal.aborted;
  }

  /** Server-to-client requests waiting for their reply. */
  get waitingRequests(): number {
    return this.#waiting.size;
  }

  /** Marks the session busy until the returned function is called (once). */
  begin(): () => void {
    this.#active++;
    this.#idleTimer?.cancel();
    this.#idleTimer = undefined;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#active--;
      if (this.#active === 0 && !this.ended) this.#armIdleTimer();
    };
  }

  /**
   * Registers client request `id` as in flight and returns its controller, aborted by a
   * `notifications/cancelled` naming it and when the session ends. `undefined` when a request with
   * that id is already in flight (the client reused an id). `idLiteral` is the id as written when
   * JSON.parse rounded it: ids are told apart by that text.
   */
  track(id: RequestId, idLiteral?: string): AbortController | undefined {
    const key = inFlightKey(id, idLiteral);
    if (this.#inFlight.has(key)) return undefined;
    const controller = new AbortController();
    if (this.ended) controller.abort(this.#ended.signal.reason);
    this.#inFlight.set(key, controller);
    return controller;
  }

  untrack(id: RequestId, idLiteral?: string): void {
    this.#inFlight.delete(inFlightKey(id, idLiteral));
  }

  /** `notifications/cancelled` for `id` (`idLiteral`: as written, when rounded): cancels that request if it is in flight. */
  cancel(id: unknown, reason: unknown, idLiteral?: string): void {
    if (typeof id !== "string" && typeof id !== "number") return;
    const controller = this.#inFlight.get(inFlightKey(id, idLiteral));
    controller?.abort(
      new CancelledError(
        `The client cancelled request ${idLiteral ?? JSON.stringify(id)}${
          typeof reason === "string" ? `: ${reason}` : ""
        }`,
      ),
    );
  }

  /**
   * Sends a server-to-client request on `channel` (the SSE response of the client request it belongs
   * to) and resolves with the result the client POSTs back. Rejects with the client's error as a
   * `JsonRpcError`, with `signal`'s reason (after telling the client with `notifications/cancelled`),
   * when the stream is gone before the request went out, and when the session ends.
   */
  async request(
    channel: ResponseChannel,
    method: string,
    params: unknown,
    signal?: AbortSignal,
  ): Promise<unknown> {
    if (this.ended) throw new ClosedError(`Cannot send ${method}: the session ended`);
    signal?.throwIfAborted();
    const id = this.#nextRequestId++;
    const key = idKey(id);
    const reply = waiting();
    this.#waiting.set(key, reply);
    const onAbort = (): void => {
      if (!this.#waiting.delete(key)) return;
      reply.reject(signal!.reason);
      void channel.notify({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: id, reason: "The server cancelled the request" },
      });
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const message: Record<string, unknown> = { jsonrpc: "2.0", id, method };
      if (params !== undefined) message.params = params;
      await channel.send(message);
      return await reply.promise;
    } finally {
      this.#waiting.delete(key);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /** A reply the client POSTed: settles the waiting request. False when no request waits for `id`. */
  settle(id: RequestId | undefined, outcome: { result: unknown } | { error: JsonRpcError }): boolean {
    if (id === undefined) return false;
    const waiting = this.#waiting.get(idKey(id));
    if (!waiting) return false;
    this.#waiting.delete(idKey(id));
    if ("error" in outcome) waiting.reject(outcome.error);
    else waiting.resolve(outcome.result);
    return true;
  }

  /** Adopts `stream` as the session's GET stream; false when one is already open. */
  attachGetStream(stream: GetStream): boolean {
    if (this.#getStream || this.ended) return false;
    this.#getStream = stream;
    const done = this.begin();
    void stream.closed.then(() => {
      if (this.#getStream === stream) this.#getStream = undefined;
      done();
    });
    return true;
  }

  /** Ends the GET stream, if one is open (the session goes on; the client may open another). */
  closeGetStream(): void {
    void this.#getStream?.close();
  }

  /**
   * True while a GET stream is open. A resumable one whose client left (no connection) ends here,
   * so that a fresh GET may take its place.
   */
  get hasGetStream(): boolean {
    if (this.#getStream?.connected === false) {
      void this.#getStream.close();
      this.#getStream = undefined;
    }
    return this.#getStream !== undefined;
  }

  /**
   * Sends a notification unrelated to any request (a list change, a resource update) on the GET
   * stream; waits while the stream is full. Without an open GET stream the message is dropped (the
   * transport offers no other way). Rejects with `ClosedError` once the session ended.
   */
  async notify(method: string, params?: unknown): Promise<void> {
    if (this.ended) throw new ClosedError(`Cannot send ${method}: session ${this.id} ended`);
    const stream = this.#getStream;
    if (!stream) return;
    const message: Record<string, unknown> = { jsonrpc: "2.0", method };
    if (params !== undefined) message.params = params;
    try {
      await stream.write(message);
    } catch (error) {
      if (this.ended) {
        throw new ClosedError(`Cannot send ${method}: session ${this.id} ended`, { cause: error });
      }
      if (error instanceof CancelledError || error instanceof ClosedError) return; // the GET stream went away: dropped, as without one
      throw error;
    }
  }

  /** Ends the session: cancels its requests in flight, rejects waiting server-to-client requests, ends the GET stream. */
  end(reason: Error): void {
    if (this.ended) return;
    this.#ended.abort(reason);
    this.#idleTimer?.cancel();
    this.#idleTimer = undefined;
    for (const controller of this.#inFlight.values()) controller.abort(reason);
    for (const waiting of this.#waiting.values()) waiting.reject(reason);
    this.#waiting.clear();
    void this.#getStream?.close();
    this.#options.onEnd(this);
  }

  #armIdleTimer(): void {
    const { idleTimeout, timeProvider } = this.#options;
    if (!Number.isFinite(idleTimeout)) return;
    this.#idleTimer = timeProvider.setTimer(() => {
      this.#idleTimer = undefined;
      if (this.#active === 0) {
        this.end(new ClosedError(`The session ${this.id} ended after ${idleTimeout} ms idle`));
      }
    }, idleTimeout);
  }
}

/** The in-flight key of client request id `id`: its text as written when JSON.parse rounded it. */
function inFlightKey(id: RequestId, idLiteral: string | undefined): string {
  return cancelledKey(id, idLiteral);
}
