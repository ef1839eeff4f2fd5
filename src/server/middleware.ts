/**
 * Middleware around the server's dispatch: `server.use(async (ctx, next) => …)`. Each middleware
 * sees one request (method, params, principal, era) and may answer it (return without calling
 * `next`), transform it (change `ctx.params`, or what `next()` resolved with) or reject it (throw a
 * `JsonRpcError`). The same pipeline runs on every transport: streams and HTTP alike.
 * @module
 */
import { isPlainObject } from "../wire/meta_envelope.ts";
import { MetaKeys } from "../wire/protocol_versions.ts";
import type { IncomingRequest } from "../wire/json_rpc_message.ts";
import type { DispatchContext } from "./dispatch_context.ts";

/** What a middleware sees of one request. */
export interface MiddlewareContext {
  /** The JSON-RPC method. */
  readonly method: string;
  /** The request's params; a middleware may replace them before calling `next`. */
  params: unknown;
  /** The JSON-RPC id. */
  readonly requestId: string | number;
  /** `"modern"` when `params._meta` carries the modern envelope's protocol version, else `"legacy"`. */
  readonly era: "modern" | "legacy";
  /** Who sent it, when the transport authenticated it (the OAuth subject over HTTP). */
  readonly principal: string | undefined;
  /** The legacy HTTP session's id (`Mcp-Session-Id`), when there is one. */
  readonly sessionId: string | undefined;
  /** `"pipe"` (a stream: stdio, `MessagePort`) or `"tcp"` (HTTP), when the transport says. */
  readonly networkTransport: string | undefined;
  /** Aborted when the request is cancelled or its transport goes away. */
  readonly signal: AbortSignal;
  /**
   * A key for "one client": the principal, else the legacy session id, else one per stream
   * connection, else `"anonymous"` (every stateless HTTP request alike).
   */
  readonly clientKey: string;
}

/**
 * One step of the pipeline: resolves with the request's result, from `next()` (the rest of the
 * pipeline, then the handler) or of its own; throws a `JsonRpcError` to answer with an error.
 */
export type Middleware = (context: MiddlewareContext, next: () => Promise<unknown>) => unknown;

/** A per-connection key for stream sessions, made on first use. */
const streamKeys = new WeakMap<object, string>();
let streamKeyCount = 0;

/** The {@linkcode MiddlewareContext} of one request. */
export class MiddlewareCall implements MiddlewareContext {
  readonly method: string;
  params: unknown;
  readonly requestId: string | number;
  readonly #context: DispatchContext;

  constructor(request: IncomingRequest, context: DispatchContext) {
    this.method = request.method;
    this.params = request.params;
    this.requestId = request.id;
    this.#context = context;
  }

  get era(): "modern" | "legacy" {
    const meta = isPlainObject(this.params) ? this.params._meta : undefined;
    return isPlainObject(meta) && typeof meta[MetaKeys.protocolVersion] === "string" ? "modern" : "legacy";
  }

  get principal(): string | undefined {
    return this.#context.principal;
  }

  get sessionId(): string | undefined {
    const id = (this.#context.session as { id?: unknown } | undefined)?.id;
    return typeof id === "string" ? id : undefined;
  }

  get networkTransport(): string | undefined {
    return this.#context.networkTransport;
  }

  get signal(): AbortSignal {
    return this.#context.signal;
  }

  get clientKey(): string {
    const principal = this.principal;
    if (principal !== undefined) return `principal:${principal}`;
    const sessionId = this.sessionId;
    if (sessionId !== undefined) return `session:${sessionId}`;
    const session = this.#context.session;
    if (session !== undefined && this.networkTransport === "pipe") {
      let key = streamKeys.get(session);
      if (key === undefined) streamKeys.set(session, key = `stream:${++streamKeyCount}`);
      return key;
    }
    return "anonymous";
  }
}

/**
 * Runs `middleware` in order around `last` (the handler): each `next()` runs the following one;
 * calling `next()` twice in one middleware rejects.
 */
export function runPipeline(
  middleware: readonly Middleware[],
  call: MiddlewareCall,
  last: (call: MiddlewareCall) => unknown,
): Promise<unknown> {
  const step = (index: number): Promise<unknown> => {
    if (index === middleware.length) {
      try {
        return Promise.resolve(last(call));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    let called = false;
    const next = () => {
      if (called) return Promise.reject(new Error("A middleware called next() twice"));
      called = true;
      return step(index + 1);
    };
    try {
      return Promise.resolve(middleware[index]!(call, next));
    } catch (error) {
      return Promise.reject(error);
    }
  };
  return step(0);
}
