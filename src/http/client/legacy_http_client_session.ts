/**
 * `LegacyHttpClientSession`: the {@linkcode ClientExchange} of the Streamable HTTP transport of the
 * legacy era (2025-03-26 … 2025-11-25): `initialize` over POST, the `Mcp-Session-Id` kept and sent,
 * `MCP-Protocol-Version` on every request after it, the GET stream for server-initiated messages
 * (reconnecting with backoff and `Last-Event-ID`), server-to-client requests answered by POST, a
 * response stream that ends early resumed through GET, re-initialization on 404, `DELETE` on close.
 * @module
 */
import { asError, ClosedError, ProtocolError } from "../../wire/errors.ts";
import { idKey, type IncomingRequest, type RequestId } from "../../wire/json_rpc_message.ts";
import { deferred } from "../../stream/deferred.ts";
import type { TimeProvider } from "../../stream/time_provider.ts";
import type { ConnectionCloseInfo } from "../../rpc/connection_state.ts";
import type { RequestContext } from "../../rpc/request_context.ts";
import type { ClientExchange, ExchangeRequestOptions } from "../../client/client_exchange.ts";
import type { Capabilities, Implementation } from "../../wire/protocol_versions.ts";
import { McpHeaders } from "../mcp_request_headers.ts";
import { ACCEPT_BOTH, errorOfStatus, type HttpEndpoint, type HttpReply } from "./http_endpoint.ts";
import { HttpStatusError, StreamBrokenError } from "./http_client_errors.ts";
import { RequestDeadline, type RequestDeadlineOptions } from "./request_deadline.ts";
import { listenForServerMessages, type ReconnectOptions } from "./legacy_get_stream.ts";
import { LegacyMessageRouter, type Pending, settle } from "./legacy_message_router.ts";
import { type LegacyRequestParts, sendLegacyRequest, SessionExpired } from "./send_legacy_request.ts";

export type { ReconnectOptions } from "./legacy_get_stream.ts";

/** Why a request's send is stopped after its reply arrived (another way than its own POST stream). */
const REQUEST_SETTLED = new ClosedError("The request settled");

/** Options of {@linkcode LegacyHttpClientSession}. */
export interface LegacyHttpSessionOptions {
  endpoint: HttpEndpoint;
  time: TimeProvider;
  timeouts: RequestDeadlineOptions;
  reconnect: Required<ReconnectOptions>;
  clientInfo: Implementation;
  capabilities: Capabilities;
  /**
   * Open the GET stream after `initialize`. Default true.
   * @default true
   */
  listen: boolean;
  report(error: Error): void;
  onNotification(method: string, params: unknown): unknown;
  onRequest(request: IncomingRequest, context: RequestContext): unknown;
  /** Server messages may have been lost: the GET stream reopened without resuming, or (`sessionLost`) the session re-initialized. */
  onResync?(info: { sessionLost: boolean }): void;
}

/** One legacy Streamable HTTP session (see the module note). */
export class LegacyHttpClientSession implements ClientExchange {
  readonly #o: LegacyHttpSessionOptions;
  readonly #router: LegacyMessageRouter;
  readonly #pending: Map<string, Pending>;
  readonly #requestParts: LegacyRequestParts;
  readonly #closed = deferred<ConnectionCloseInfo>();
  readonly #serverRequests = new AbortController();
  #listening = new AbortController();
  #offered = "";
  #version: string | undefined;
  #sessionId: string | undefined;
  #generation = 0;
  #reinitializing: Promise<void> | undefined;
  /** The last re-initialization came from a GET stream's 404 before that stream had opened, and no GET stream opened since. */
  #lostBeforeOpen = false;
  #nextId = 0;
  #isClosed = false;

  constructor(options: LegacyHttpSessionOptions) {
    this.#o = options;
    this.#router = new LegacyMessageRouter({
      report: options.report,
      onNotification: options.onNotification,
      onRequest: options.onRequest,
      signal: this.#serverRequests.signal,
      notify: (method, params) => this.notify(method, params),
      post: (message, what) => this.#postExpectingAccepted(message, what),
      isClosed: () => this.#isClosed,
    });
    this.#pending = this.#router.pending;
    this.#requestParts = {
      endpoint: options.endpoint,
      time: options.time,
      reconnect: options.reconnect,
      sessionHeaders: () => this.#sessionHeaders(),
      hasSession: () => this.#sessionId !== undefined,
      dispatch: (value, owner, ownerId, progress) => this.#router.dispatch(value, owner, ownerId, progress),
    };
  }

  /** The session id the server minted, if it minted one. */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  /** The negotiated version, sent as `MCP-Protocol-Version`. */
  get protocolVersion(): string | undefined {
    return this.#version;
  }

  /** Resolves once the session was closed. */
  get closed(): Promise<ConnectionCloseInfo> {
    return this.#closed.promise;
  }

  /**
   * Sends `initialize` offering `protocolVersion`, keeps the session id, sends
   * `notifications/initialized` and opens the GET stream. Resolves with the raw initialize result;
   * `version` (from the result) is what later requests send as `MCP-Protocol-Version`.
   */
  async initialize(
    protocolVersion: string,
    version: (result: unknown) => string | undefined,
  ): Promise<unknown> {
    this.#offered = protocolVersion;
    return this.#handshake(version);
  }

  async request(method: string, params: unknown, options: ExchangeRequestOptions = {}): Promise<unknown> {
    let reinitialized = false;
    let reissued = false;
    for (;;) {
      const generation = this.#generation;
      try {
        return await this.#once(method, params, options);
      } catch (error) {
        if (error instanceof SessionExpired && !reinitialized) {
          reinitialized = true;
          await this.#reinitialize(generation);
          continue;
        }
        if (error instanceof SessionExpired) {
          throw new ProtocolError(
            `The server answered ${method} with 404 (session not found) again after re-initializing`,
          );
        }
        if (
          error instanceof StreamBrokenError && options.idempotent === true && !reissued && !this.#isClosed
        ) {
          reissued = true;
          options = { ...options, id: undefined };
          this.#o.report(
            new ProtocolError(`${error.message}; re-issuing it with a new id (idempotent)`, { cause: error }),
          );
          continue;
        }
        throw error;
      }
    }
  }

  async notify(method: string, params?: unknown): Promise<void> {
    if (this.#isClosed) throw new ClosedError("The HTTP client is closed");
    const message: Record<string, unknown> = { jsonrpc: "2.0", method };
    if (params !== undefined) message.params = params;
    await this.#postExpectingAccepted(message, method);
  }

  async close(): Promise<void> {
    if (this.#isClosed) return this.#closed.promise.then(() => {});
    this.#isClosed = true;
    this.#listening.abort(new ClosedError("The HTTP client closed"));
    this.#serverRequests.abort(new ClosedError("The HTTP client closed"));
    for (const entry of this.#pending.values()) {
      settle(entry, undefined, new ClosedError("The HTTP client closed while the request was pending"));
    }
    this.#pending.clear();
    if (this.#sessionId !== undefined) {
      try {
        const response = await this.#o.endpoint.send("DELETE", { headers: this.#sessionHeaders() });
        await response.body?.cancel();
        // 405: the server does not let clients end sessions; 404: it already forgot this one.
        if (!response.ok && response.status !== 405 && response.status !== 404) {
          this.#o.report(new HttpStatusError("DELETE (ending the session)", { status: response.status }));
        }
      } catch (error) {
        this.#o.report(
          new ProtocolError(`Ending the session with DELETE failed: ${asError(error).message}`, {
            cause: error,
          }),
        );
      }
    }
    this.#closed.resolve({ reason: "closed" });
  }

  // ---- handshake ----

  async #handshake(version: (result: unknown) => string | undefined): Promise<unknown> {
    this.#sessionId = undefined;
    this.#version = undefined;
    const params = {
      protocolVersion: this.#offered,
      capabilities: this.#o.capabilities,
      clientInfo: this.#o.clientInfo,
    };
    const result = await this.#once("initialize", params, {}, (response) => {
      const id = response.headers.get(McpHeaders.sessionId);
      if (id !== null) this.#sessionId = id;
    });
    this.#version = version(result);
    await this.#postExpectingAccepted(
      { jsonrpc: "2.0", method: "notifications/initialized" },
      "notifications/initialized",
    );
    this.#generation++;
    this.#listening.abort(new ClosedError("The session was re-initialized"));
    this.#listening = new AbortController();
    if (this.#o.listen) {
      const generation = this.#generation;
      void listenForServerMessages({
        endpoint: this.#o.endpoint,
        time: this.#o.time,
        reconnect: this.#o.reconnect,
        headers: () => this.#sessionHeaders(),
        onMessage: (message) => this.#router.dispatch(message, undefined, undefined),
        report: this.#o.report,
        signal: this.#listening.signal,
        onOpened: ({ reopened, resumed }) => {
          this.#lostBeforeOpen = false;
          if (reopened && !resumed) this.#o.onResync?.({ sessionLost: false });
        },
        onSessionLost: (opened) => {
          // Without a session id there is no session to lose: a 404 is a server without a GET stream.
          if (this.#sessionId === undefined) return false;
          // A GET stream refused before it ever opened, right after a re-initialization for the same
          // reason, is a server that 404s every GET: give up rather than loop.
          if (!opened && this.#lostBeforeOpen) return false;
          this.#lostBeforeOpen = !opened;
          void this.#reinitialize(generation).catch((error) => this.#o.report(asError(error)));
          return true;
        },
      });
    }
    return result;
  }

  #reinitialize(generation: number): Promise<void> {
    if (generation !== this.#generation) return Promise.resolve();
    this.#reinitializing ??= (async () => {
      try {
        const version = this.#version;
        this.#o.report(
          new ProtocolError(
            `The server forgot session ${JSON.stringify(this.#sessionId)} (404); initializing again`,
          ),
        );
        await this.#handshake(() => version);
        this.#o.onResync?.({ sessionLost: true }); // the old session's subscriptions and undelivered messages are gone
      } finally {
        this.#reinitializing = undefined;
      }
    })();
    return this.#reinitializing;
  }

  // ---- requests ----

  #once(
    method: string,
    params: unknown,
    options: ExchangeRequestOptions,
    onResponse?: (response: HttpReply) => void,
  ): Promise<unknown> {
    if (this.#isClosed) return Promise.reject(new ClosedError("The HTTP client is closed"));
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id: RequestId = options.id ?? ++this.#nextId;
    const message: Record<string, unknown> = { jsonrpc: "2.0", id, method };
    if (params !== undefined) message.params = params;
    const done = deferred<{ ok: true; value: unknown } | { ok: false; error: unknown }>();
    const entry: Pending = {
      method,
      onNotification: options.onNotification,
      resolve: (value) => done.resolve({ ok: true, value }),
      reject: (error) => done.resolve({ ok: false, error }),
      settled: false,
    };
    const key = idKey(id);
    this.#pending.set(key, entry);
    const controller = new AbortController();
    const stop = (reason: unknown): void => {
      if (entry.settled) return;
      settle(entry, undefined, reason);
      this.#pending.delete(key);
      controller.abort(reason);
      if (method !== "initialize") void this.#postCancelled(id, reason);
    };
    const onAbort = (): void => stop(signal!.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    const deadline = new RequestDeadline(this.#o.time, {
      ...this.#o.timeouts,
      what: `Request ${method}`,
      onExpire: stop,
    });
    const progress = (): void => deadline.restart();
    void sendLegacyRequest(this.#requestParts, id, message, entry, controller.signal, progress, onResponse)
      .catch((error) => {
        if (!entry.settled) {
          settle(entry, undefined, controller.signal.aborted ? controller.signal.reason : error);
        }
      });
    return done.promise.then((outcome) => {
      deadline.cancel();
      signal?.removeEventListener("abort", onAbort);
      this.#pending.delete(key);
      // Whatever of the send still runs stops (a POST stream whose reply came another way). The
      // reason is shared: no error, and no stack trace, made per request.
      controller.abort(REQUEST_SETTLED);
      if (outcome.ok) return outcome.value;
      throw outcome.error;
    });
  }

  // ---- helpers ----

  #sessionHeaders(): Record<string, string> {
    const headers: Record<string, string> = {};
    if (this.#sessionId !== undefined) headers[McpHeaders.sessionId] = this.#sessionId;
    if (this.#version !== undefined) headers[McpHeaders.protocolVersion] = this.#version;
    return headers;
  }

  async #postExpectingAccepted(message: Record<string, unknown>, what: string): Promise<void> {
    const headers = { "Content-Type": "application/json", Accept: ACCEPT_BOTH, ...this.#sessionHeaders() };
    const response = await this.#o.endpoint.send("POST", { headers, body: JSON.stringify(message) });
    if (!response.ok) throw await errorOfStatus(response, what);
    await response.body?.cancel();
  }

  async #postCancelled(id: RequestId, reason: unknown): Promise<void> {
    if (this.#isClosed) return;
    try {
      await this.notify("notifications/cancelled", { requestId: id, reason: asError(reason).message });
    } catch (error) {
      this.#o.report(
        new ProtocolError(
          `Posting notifications/cancelled for request ${JSON.stringify(id)} failed: ${
            asError(error).message
          }`,
          { cause: error },
        ),
      );
    }
  }
}
