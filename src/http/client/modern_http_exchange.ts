/**
 * `ModernHttpExchange`: the {@linkcode ClientExchange} of the 2026-07-28 Streamable HTTP transport.
 * One POST per message, headers derived from the body, `Mcp-Param-*` from the `x-mcp-header`
 * annotations `tools/list` taught it, a JSON or SSE reply, cancellation by aborting the fetch.
 * @module
 */
import {
  asError,
  ClosedError,
  ErrorCodes,
  JsonRpcError,
  ProtocolError,
  TransportError,
} from "../../wire/errors.ts";
import { classifyMessage, type RequestId } from "../../wire/json_rpc_message.ts";
import { isPlainObject } from "../../wire/meta_envelope.ts";
import { MetaKeys } from "../../wire/protocol_versions.ts";
import { deferred } from "../../stream/deferred.ts";
import type { TimeProvider } from "../../stream/time_provider.ts";
import type { ConnectionCloseInfo } from "../../rpc/connection_state.ts";
import type { ClientExchange, ExchangeRequestOptions } from "../../client/client_exchange.ts";
import { newestSharedModern } from "../../client/probe_classifier.ts";
import { deriveRequestHeaders, HEADER_MISMATCH } from "../mcp_request_headers.ts";
import { type ParamHeader, screenTools } from "../mcp_header_annotations.ts";
import { ACCEPT_BOTH, errorOfStatus, type HttpEndpoint, type HttpReply } from "./http_endpoint.ts";
import { HttpStatusError, StreamBrokenError } from "./http_client_errors.ts";
import { RequestDeadline, type RequestDeadlineOptions } from "./request_deadline.ts";

/** Options of {@linkcode ModernHttpExchange}. */
export interface ModernHttpExchangeOptions {
  endpoint: HttpEndpoint;
  /** The negotiated version: `MCP-Protocol-Version` when a body's `_meta` carries none. */
  protocolVersion: string;
  time: TimeProvider;
  timeouts: RequestDeadlineOptions;
  /** Warnings (dropped tools) and stray messages. */
  report(error: Error): void;
  /** Notifications on a response stream whose request gave no `onNotification`. */
  onNotification(method: string, params: unknown): unknown;
}

/** The `_meta` keys a re-listing `tools/list` copies from the request that needed it. */
const ENVELOPE_KEYS = [MetaKeys.protocolVersion, MetaKeys.clientCapabilities, MetaKeys.clientInfo];
/** The timeouts of a `subscriptions/listen` request: none. */
const UNBOUNDED = { timeout: Number.POSITIVE_INFINITY, maxTotalTimeout: Number.POSITIVE_INFINITY };
/** Pages a re-listing follows at most. */
const MAX_RELIST_PAGES = 100;

/**
 * Sends each request as its own POST. Retries once on -32020 for `tools/call` (after listing the
 * tools again), once on -32022 with the newest version both sides support, and, for a request marked
 * `idempotent`, once with a new id when its response stream breaks or a proxy answers 502, 503 or
 * 504 (the replica behind it failed). Otherwise a broken stream
 * rejects at once with {@linkcode StreamBrokenError}.
 */
export class ModernHttpExchange implements ClientExchange {
  readonly #o: ModernHttpExchangeOptions;
  readonly #paramHeaders = new Map<string, ParamHeader[]>();
  readonly #inflight = new Set<AbortController>();
  readonly #closed = deferred<ConnectionCloseInfo>();
  #version: string;
  #nextId = 0;
  #isClosed = false;

  constructor(options: ModernHttpExchangeOptions) {
    this.#o = options;
    this.#version = options.protocolVersion;
  }

  /** The version sent now (it changes after a -32022 retry). */
  get protocolVersion(): string {
    return this.#version;
  }

  /** Resolves once {@linkcode ModernHttpExchange.close} ran. */
  get closed(): Promise<ConnectionCloseInfo> {
    return this.#closed.promise;
  }

  /** The mirrored parameters known for `tool` (from the last `tools/list` that listed it). */
  paramHeadersOf(tool: string): readonly ParamHeader[] | undefined {
    return this.#paramHeaders.get(tool);
  }

  request(method: string, params: unknown, options: ExchangeRequestOptions = {}): Promise<unknown> {
    // Not an async function: the first attempt is chained directly (one promise less per request);
    // only a failure goes through the retries.
    return this.#once(method, params, options, options.id).then(
      (result) => method === "tools/list" ? this.#screen(result) : result,
      (error: unknown) => this.#retry(method, params, options, error),
    );
  }

  /**
   * After a failed first attempt: retries once on -32020 for `tools/call` (after listing the tools
   * again), once on -32022 with the newest shared version, and once with a new id for an
   * `idempotent` request whose stream broke or whose proxy answered 502/503/504; else rethrows.
   */
  async #retry(
    method: string,
    params: unknown,
    options: ExchangeRequestOptions,
    first: unknown,
  ): Promise<unknown> {
    let error = first;
    let current = params;
    // The caller's id (a listen stream's subscription id) holds for every attempt but a re-issue.
    let id = options.id;
    let relisted = false;
    let versionRetried = false;
    let reissued = false;
    for (;;) {
      const shared = !versionRetried && error instanceof JsonRpcError &&
          error.code === ErrorCodes.UnsupportedProtocolVersion
        ? sharedVersionOf(error)
        : undefined;
      if (
        error instanceof JsonRpcError && error.code === HEADER_MISMATCH && method === "tools/call" &&
        !relisted
      ) {
        relisted = true;
        await this.#relist(current, options.signal);
      } else if (shared !== undefined) {
        versionRetried = true;
        this.#version = shared;
        current = withProtocolVersion(current, shared);
      } else if (
        (error instanceof StreamBrokenError || isGatewayFailure(error)) && options.idempotent === true &&
        !reissued && !this.#isClosed
      ) {
        reissued = true;
        id = undefined;
        this.#o.report(
          new ProtocolError(`${error.message}; re-issuing it with a new id (idempotent)`, { cause: error }),
        );
      } else {
        throw error;
      }
      try {
        const result = await this.#once(method, current, options, id);
        return method === "tools/list" ? this.#screen(result) : result;
      } catch (next) {
        error = next;
      }
    }
  }

  async notify(method: string, params?: unknown): Promise<void> {
    if (this.#isClosed) throw new ClosedError("The HTTP client is closed");
    const message: Record<string, unknown> = { jsonrpc: "2.0", method };
    if (params !== undefined) message.params = params;
    const headers = {
      "Content-Type": "application/json",
      Accept: ACCEPT_BOTH,
      ...deriveRequestHeaders(message, { protocolVersion: this.#version }),
    };
    const response = await this.#o.endpoint.send("POST", { headers, body: JSON.stringify(message) });
    if (response.ok) {
      await response.body?.cancel();
      return;
    }
    throw await errorOfStatus(response, method);
  }

  close(): Promise<void> {
    if (!this.#isClosed) {
      this.#isClosed = true;
      for (const controller of this.#inflight) {
        controller.abort(new ClosedError("The HTTP client closed while the request was pending"));
      }
      this.#closed.resolve({ reason: "closed" });
    }
    return Promise.resolve();
  }

  async #once(
    method: string,
    params: unknown,
    options: ExchangeRequestOptions,
    givenId?: RequestId,
  ): Promise<unknown> {
    if (this.#isClosed) throw new ClosedError("The HTTP client is closed");
    const { signal, onNotification } = options;
    signal?.throwIfAborted();
    const id: RequestId = givenId ?? ++this.#nextId;
    const message: Record<string, unknown> = { jsonrpc: "2.0", id, method };
    if (params !== undefined) message.params = params;
    const tool = method === "tools/call" && isPlainObject(params) && typeof params.name === "string"
      ? params.name
      : undefined;
    const headers = {
      "Content-Type": "application/json",
      Accept: ACCEPT_BOTH,
      ...deriveRequestHeaders(message, {
        protocolVersion: this.#version,
        paramHeaders: tool === undefined ? undefined : this.#paramHeaders.get(tool),
      }),
    };
    const controller = new AbortController();
    const onAbort = (): void => controller.abort(signal!.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    // A listen stream is meant to stay open: only the caller's signal ends it.
    const timeouts = method === "subscriptions/listen" ? UNBOUNDED : this.#o.timeouts;
    const deadline = new RequestDeadline(this.#o.time, {
      ...timeouts,
      what: `Request ${method}`,
      onExpire: (error) => controller.abort(error),
    });
    this.#inflight.add(controller);
    try {
      let response: HttpReply;
      try {
        response = await this.#o.endpoint.send("POST", {
          headers,
          body: JSON.stringify(message),
          signal: controller.signal,
        });
      } catch (error) {
        if (controller.signal.aborted) throw controller.signal.reason;
        throw new StreamBrokenError(method, id, { cause: error });
      }
      if (!response.ok) throw await errorOfStatus(response, method);
      if (response.status === 202) {
        throw new ProtocolError(`The server answered request ${method} with 202 Accepted and no reply`);
      }
      let reply: { result: unknown } | { error: JsonRpcError } | undefined;
      try {
        await this.#o.endpoint.read(response, (value) => {
          const m = classifyMessage(value);
          if ((m.kind === "result" || m.kind === "error") && m.id === id) {
            reply = m.kind === "result" ? { result: m.result } : { error: m.error };
            return true;
          }
          if (m.kind === "notification") {
            if (m.method === "notifications/progress") deadline.restart();
            this.#deliver(onNotification ?? this.#o.onNotification, m.method, m.params);
          } else if (m.kind === "request") {
            this.#o.report(
              new ProtocolError(
                `The server sent request ${m.request.method} on the response stream of ${method}; the modern era has none (ignored)`,
              ),
            );
          } else {
            this.#o.report(
              new ProtocolError(
                `Unexpected message on the response stream of ${method}: ${
                  JSON.stringify(value)?.slice(0, 200)
                }`,
              ),
            );
          }
          return false;
        }, controller.signal);
      } catch (error) {
        if (controller.signal.aborted) throw controller.signal.reason;
        if (error instanceof TransportError && error.code !== "read_failed") throw error;
        throw new StreamBrokenError(method, id, { cause: error });
      }
      if (reply === undefined) {
        if (controller.signal.aborted) throw controller.signal.reason;
        throw new StreamBrokenError(method, id);
      }
      if ("error" in reply) throw reply.error;
      return reply.result;
    } finally {
      deadline.cancel();
      signal?.removeEventListener("abort", onAbort);
      this.#inflight.delete(controller);
    }
  }

  #deliver(handler: (method: string, params: unknown) => unknown, method: string, params: unknown): void {
    try {
      const returned: unknown = handler(method, params);
      if (returned instanceof Promise) returned.catch((error) => this.#o.report(asError(error)));
    } catch (error) {
      this.#o.report(asError(error));
    }
  }

  /** Drops tools with invalid `x-mcp-header` annotations (with a warning) and remembers the others' mirrored parameters. */
  #screen(result: unknown): unknown {
    if (!isPlainObject(result) || !Array.isArray(result.tools)) return result;
    const screening = screenTools(result.tools);
    for (const [name, params] of screening.paramHeaders) this.#paramHeaders.set(name, params);
    for (const rejected of screening.rejected) {
      this.#paramHeaders.delete(rejected.name);
      this.#o.report(
        new ProtocolError(
          `Dropped tool ${JSON.stringify(rejected.name)} from tools/list: ${rejected.reason}`,
        ),
      );
    }
    return screening.rejected.length === 0 ? result : { ...result, tools: screening.tools };
  }

  /** Lists the tools again (every page) so a -32020 retry sends the current `Mcp-Param-*` headers. */
  async #relist(params: unknown, signal: AbortSignal | undefined): Promise<void> {
    const meta: Record<string, unknown> = {};
    const sent = isPlainObject(params) && isPlainObject(params._meta) ? params._meta : {};
    for (const key of ENVELOPE_KEYS) if (key in sent) meta[key] = sent[key];
    let cursor: unknown;
    for (let page = 0; page < MAX_RELIST_PAGES; page++) {
      const listParams: Record<string, unknown> = { _meta: meta };
      if (typeof cursor === "string") listParams.cursor = cursor;
      const result = await this.#once("tools/list", listParams, { signal });
      this.#screen(result);
      cursor = isPlainObject(result) ? result.nextCursor : undefined;
      if (typeof cursor !== "string") return;
    }
  }
}

/** The newest modern version both sides support, from a -32022 error's `data.supported`. */
function sharedVersionOf(error: JsonRpcError): string | undefined {
  const data = isPlainObject(error.data) ? error.data : {};
  const supported = Array.isArray(data.supported)
    ? data.supported.filter((v): v is string => typeof v === "string")
    : [];
  return newestSharedModern(supported);
}

function withProtocolVersion(params: unknown, version: string): unknown {
  if (!isPlainObject(params) || !isPlainObject(params._meta)) return params;
  return { ...params, _meta: { ...params._meta, [MetaKeys.protocolVersion]: version } };
}

/** A proxy's 502, 503 or 504 without a JSON-RPC error: the upstream failed or went away (the request may or may not have run). */
function isGatewayFailure(error: unknown): error is HttpStatusError {
  if (!(error instanceof HttpStatusError)) return false;
  const { status } = error as HttpStatusError;
  return status === 502 || status === 503 || status === 504;
}
