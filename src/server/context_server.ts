/**
 * `ContextServer`: an MCP server that speaks both protocol eras on one stream, over any duplex.
 * @module
 */
import type { Duplex } from "../stream/duplex.ts";
import { ClosedError, ErrorCodes, InvalidOptionError, JsonRpcError } from "../wire/errors.ts";
import { type CacheScope, buildDiscoverResult, type DiscoverResult } from "../wire/discover_result.ts";
import {
  type ConnectionCloseInfo,
  type IncomingRequest,
  JsonRpcConnection,
  nestChannelOptions,
  type JsonRpcConnectionOptions,
  type RequestContext,
  type RequestId,
} from "../rpc/json_rpc_connection.ts";
import {
  decorateModernResult,
  isImplementation,
  isPlainObject,
  type LoggingLevel,
  progressTokenOf,
  readRequestEnvelope,
} from "../wire/meta_envelope.ts";
import type { NewlineChannel, NewlineChannelOptions } from "../stream/newline_channel.ts";
import { integerOption, numberOption } from "../stream/options.ts";
import type { Capabilities, Era, Implementation } from "../wire/protocol_versions.ts";
import { invalidParams, ServerVersions } from "../wire/server_versions.ts";

/** Options of {@linkcode ContextServer}; every {@linkcode JsonRpcConnectionOptions} bound applies per connection. */
// The channel bounds are still accepted flat here and nested for the connection (nestChannelOptions).
export interface ContextServerOptions extends Omit<JsonRpcConnectionOptions, "onRequest" | "onNotification" | "isBarrier">, NewlineChannelOptions {
  /** `serverInfo.name`. */
  name: string;
  /** `serverInfo.version`. */
  version: string;
  /** `serverInfo.title`, for display. */
  title?: string;
  /** Server capabilities, sent in `InitializeResult` and `DiscoverResult` as given. */
  capabilities: Capabilities;
  /** Sent in `InitializeResult` and `DiscoverResult` when set. */
  instructions?: string;
  /** Versions this server speaks, of either era. Default: every legacy and modern version this library knows. */
  supportedVersions?: readonly string[];
  /** `ttlMs` of the `server/discover` result. Default 0 (immediately stale), as the MCP TypeScript SDK. */
  discoverTtlMs?: number;
  /** `cacheScope` of the `server/discover` result. Default `"private"`. */
  cacheScope?: CacheScope;
  /**
   * A request that carries no modern `_meta` envelope and arrives before any `initialize` on its
   * connection: `"reject"` (default) answers -32602, as the Python SDK does; `"legacy"` serves it in
   * the legacy era at the newest legacy version, as the TypeScript SDK does. `ping` is always answered.
   */
  unenvelopedRequests?: "reject" | "legacy";
}

/** What a request handler gets besides the params. */
export interface ServerRequestContext {
  /** The era of this request: `modern` when it carried the `_meta` envelope, else `legacy`. */
  readonly era: Era;
  /** The request's version (modern) or the version negotiated by `initialize` (legacy). */
  readonly protocolVersion: string;
  /** Who the client says it is, from the envelope or from `initialize`. */
  readonly clientInfo: Implementation | undefined;
  /** The client's capabilities, from the envelope or from `initialize` (`{}` when none). */
  readonly clientCapabilities: Capabilities;
  /** The modern envelope's (deprecated) log level, when it set one. */
  readonly logLevel: LoggingLevel | undefined;
  readonly requestId: RequestId;
  readonly method: string;
  /** Aborted when the client cancels this request, after the EOF grace period, and on close. */
  readonly signal: AbortSignal;
  /** Sends `notifications/progress` with this request's `_meta.progressToken`; a no-op without one. */
  sendProgress(progress: number, total?: number, message?: string): Promise<void>;
  /** Sends a notification tied to this request; a no-op once it is answered or cancelled. */
  notify(method: string, params?: unknown): Promise<void>;
}

/** Answers one request. The value becomes the result; a thrown `JsonRpcError` becomes the error reply. */
// deno-lint-ignore no-explicit-any
export type ServerRequestHandler<P = any> = (params: P, context: ServerRequestContext) => unknown;
/** Handles one notification from the client. */
// deno-lint-ignore no-explicit-any
export type ServerNotificationHandler<P = any> = (params: P) => unknown;
/** How one served connection ended (from its {@linkcode JsonRpcConnection}). */
export type ServeResult = ConnectionCloseInfo;

/** What `initialize` taught one connection. */
interface LegacySession {
  protocolVersion: string;
  clientInfo: Implementation | undefined;
  clientCapabilities: Capabilities;
}

interface Session {
  legacy: LegacySession | undefined;
}

/** Methods the server answers itself; `handle()` refuses them. */
const BUILT_IN = new Set(["initialize", "server/discover", "ping"]);

/**
 * Serves MCP to any number of connections, both eras on each. Legacy `initialize` is an admission
 * barrier (its reply is queued before the next message on that connection is dispatched); modern
 * requests are recognised by their `_meta` envelope, checked, and answered statelessly.
 *
 * @example
 * ```ts
 * const server = new ContextServer({ name: "demo", version: "1.0.0", capabilities: { tools: {} } });
 * server.handle("tools/list", () => ({ tools: [] }));
 * await server.serve(stdio()); // resolves when the client closes the stream
 * ```
 */
export class ContextServer implements AsyncDisposable {
  /** The `Implementation` this server reports. */
  readonly serverInfo: Implementation;
  readonly capabilities: Capabilities;
  readonly instructions: string | undefined;
  readonly versions: ServerVersions;
  readonly #discover: DiscoverResult;
  readonly #unenveloped: "reject" | "legacy";
  readonly #connectionOptions: JsonRpcConnectionOptions;
  readonly #handlers = new Map<string, ServerRequestHandler>();
  readonly #notificationHandlers = new Map<string, ServerNotificationHandler>();
  readonly #connections = new Set<JsonRpcConnection>();
  #closing: Promise<void> | undefined;
  #markClosed!: () => void;
  readonly #closed = new Promise<void>((resolve) => (this.#markClosed = resolve));

  constructor(options: ContextServerOptions) {
    const { name, version, title, capabilities, instructions, supportedVersions, discoverTtlMs, cacheScope, unenvelopedRequests, ...rest } =
      options ?? ({} as ContextServerOptions);
    if (typeof name !== "string" || name.length === 0) throw new InvalidOptionError("Option name must be a non-empty string");
    if (typeof version !== "string") throw new InvalidOptionError(`Option version must be a string, got ${typeof version}`);
    if (!isPlainObject(capabilities)) throw new InvalidOptionError("Option capabilities must be an object (use {} for none)");
    if (instructions !== undefined && typeof instructions !== "string") throw new InvalidOptionError("Option instructions must be a string");
    if (cacheScope !== undefined && cacheScope !== "public" && cacheScope !== "private") {
      throw new InvalidOptionError(`Option cacheScope must be "public" or "private", got ${JSON.stringify(cacheScope)}`);
    }
    if (unenvelopedRequests !== undefined && unenvelopedRequests !== "reject" && unenvelopedRequests !== "legacy") {
      throw new InvalidOptionError(`Option unenvelopedRequests must be "reject" or "legacy", got ${JSON.stringify(unenvelopedRequests)}`);
    }
    const ttlMs = Math.floor(numberOption("discoverTtlMs", discoverTtlMs, 0));
    this.serverInfo = title === undefined ? { name, version } : { name, version, title };
    this.capabilities = capabilities;
    this.instructions = instructions;
    this.versions = new ServerVersions(supportedVersions);
    this.#unenveloped = unenvelopedRequests ?? "reject";
    this.#discover = buildDiscoverResult({
      serverInfo: this.serverInfo,
      supportedVersions: this.versions.modern,
      capabilities,
      instructions,
      ttlMs,
      cacheScope: cacheScope ?? "private",
    });
    // Fail on bad connection bounds now rather than on the first connection.
    numberOption("endOfStreamTimeout", rest.endOfStreamTimeout, 0);
    numberOption("shutdownTimeout", rest.shutdownTimeout, 0);
    integerOption("maxConcurrentRequests", rest.maxConcurrentRequests, 1, 1);
    this.#connectionOptions = nestChannelOptions(rest);
  }

  /** Registers the handler of request `method`, replacing an earlier one. `initialize`, `server/discover` and `ping` are built in. */
  handle<P = unknown>(method: string, handler: ServerRequestHandler<P>): this {
    if (BUILT_IN.has(method)) throw new InvalidOptionError(`Method ${method} is answered by ContextServer itself and cannot be handled`);
    this.#handlers.set(method, handler as ServerRequestHandler);
    return this;
  }

  /** Registers the handler of notification `method` (`notifications/initialized` and `notifications/cancelled` included). */
  onNotification<P = unknown>(method: string, handler: ServerNotificationHandler<P>): this {
    this.#notificationHandlers.set(method, handler as ServerNotificationHandler);
    return this;
  }

  /** Connections being served now. */
  get connectionCount(): number {
    return this.#connections.size;
  }

  /**
   * Serves one connection until it closes: input EOF (after handlers finish and replies drain, within
   * `endOfStreamTimeout` + `shutdownTimeout`), a transport fault, or {@linkcode ContextServer.close}.
   * Rejects with `ClosedError` once the server is closing.
   */
  async serve(transport: Duplex | NewlineChannel): Promise<ServeResult> {
    if (this.#closing) throw new ClosedError("The server is closed: it serves no new connections");
    const session: Session = { legacy: undefined };
    const connection = new JsonRpcConnection(transport, {
      ...this.#connectionOptions,
      isBarrier: (request) => request.method === "initialize",
      onRequest: (request, context) => this.#dispatch(session, request, context),
      onNotification: (method, params) => this.#notificationHandlers.get(method)?.(params),
    });
    this.#connections.add(connection);
    try {
      connection.start();
      return await connection.closed;
    } finally {
      this.#connections.delete(connection);
    }
  }

  /** Closes every live connection (no grace: handlers are cancelled, output drains bounded) and refuses new ones. */
  close(): Promise<void> {
    this.#closing ??= Promise.all([...this.#connections].map((c) => c.close())).then(() => this.#markClosed());
    return this.#closing;
  }

  /** Resolves once {@linkcode ContextServer.close} has closed every connection. */
  get closed(): Promise<void> {
    return this.#closed;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #dispatch(session: Session, request: IncomingRequest, rpc: RequestContext): unknown {
    const { method, params } = request;
    if (method === "initialize") return this.#initialize(session, params);
    const reading = readRequestEnvelope(params);
    switch (reading.kind) {
      case "malformed":
        // A readable but unsupported version is the more useful answer: the client can retry with one we speak.
        if (reading.protocolVersion !== undefined && !this.versions.supportsModern(reading.protocolVersion)) {
          throw this.versions.unsupported(reading.protocolVersion);
        }
        throw invalidParams(reading.message);
      case "envelope": {
        const { envelope } = reading;
        if (!this.versions.supportsModern(envelope.protocolVersion)) throw this.versions.unsupported(envelope.protocolVersion);
        if (method === "server/discover") return this.#discover;
        const context = this.#context(rpc, params, {
          era: "modern",
          protocolVersion: envelope.protocolVersion,
          clientInfo: envelope.clientInfo,
          clientCapabilities: envelope.clientCapabilities,
          logLevel: envelope.logLevel,
        });
        if (method === "ping") return decorateModernResult({}, this.serverInfo);
        const result = this.#invoke(method, params, context);
        return result instanceof Promise
          ? result.then((value) => decorateModernResult(value, this.serverInfo, method))
          : decorateModernResult(result, this.serverInfo, method);
      }
      case "none": {
        if (method === "ping") return {};
        if (method === "server/discover") {
          throw invalidParams(`server/discover is a modern request: params._meta must carry the io.modelcontextprotocol envelope`);
        }
        let legacy = session.legacy;
        if (legacy === undefined) {
          if (this.#unenveloped === "reject" || this.versions.legacy.length === 0) {
            throw invalidParams(
              `Request ${method} arrived before initialize and without the modern _meta envelope: send initialize first (legacy) or params._meta["io.modelcontextprotocol/protocolVersion"] (modern)`,
            );
          }
          legacy = { protocolVersion: this.versions.legacy[0], clientInfo: undefined, clientCapabilities: {} };
        }
        return this.#invoke(method, params, this.#context(rpc, params, {
          era: "legacy",
          protocolVersion: legacy.protocolVersion,
          clientInfo: legacy.clientInfo,
          clientCapabilities: legacy.clientCapabilities,
          logLevel: undefined,
        }));
      }
    }
  }

  #initialize(session: Session, params: unknown): unknown {
    if (!isPlainObject(params) || typeof params.protocolVersion !== "string") {
      throw invalidParams("Invalid initialize params: protocolVersion must be a string");
    }
    if (session.legacy !== undefined) {
      throw new JsonRpcError(ErrorCodes.InvalidRequest, "Invalid request: initialize was already answered on this connection");
    }
    const protocolVersion = this.versions.negotiateLegacy(params.protocolVersion);
    session.legacy = {
      protocolVersion,
      clientInfo: isImplementation(params.clientInfo) ? params.clientInfo : undefined,
      clientCapabilities: isPlainObject(params.capabilities) ? params.capabilities : {},
    };
    const result: Record<string, unknown> = { protocolVersion, capabilities: this.capabilities, serverInfo: this.serverInfo };
    if (this.instructions !== undefined) result.instructions = this.instructions;
    return result;
  }

  #invoke(method: string, params: unknown, context: ServerRequestContext): unknown {
    const handler = this.#handlers.get(method);
    if (!handler) throw new JsonRpcError(ErrorCodes.MethodNotFound, `Method not found: ${method}`);
    return handler(params, context);
  }

  #context(
    rpc: RequestContext,
    params: unknown,
    era: Pick<ServerRequestContext, "era" | "protocolVersion" | "clientInfo" | "clientCapabilities" | "logLevel">,
  ): ServerRequestContext {
    return new ServerContext(rpc, params, era);
  }
}

/** The context of one request; its `AbortSignal` is made only if the handler reads it. */
class ServerContext implements ServerRequestContext {
  readonly era: Era;
  readonly protocolVersion: string;
  readonly clientInfo: Implementation | undefined;
  readonly clientCapabilities: Capabilities;
  readonly logLevel: LoggingLevel | undefined;
  readonly requestId: RequestId;
  readonly method: string;
  readonly #rpc: RequestContext;
  readonly #params: unknown;

  constructor(
    rpc: RequestContext,
    params: unknown,
    era: Pick<ServerRequestContext, "era" | "protocolVersion" | "clientInfo" | "clientCapabilities" | "logLevel">,
  ) {
    this.era = era.era;
    this.protocolVersion = era.protocolVersion;
    this.clientInfo = era.clientInfo;
    this.clientCapabilities = era.clientCapabilities;
    this.logLevel = era.logLevel;
    this.requestId = rpc.id;
    this.method = rpc.method;
    this.#rpc = rpc;
    this.#params = params;
  }

  get signal(): AbortSignal {
    return this.#rpc.signal;
  }

  notify(method: string, params?: unknown): Promise<void> {
    return this.#rpc.notify(method, params);
  }

  sendProgress(progress: number, total?: number, message?: string): Promise<void> {
    const progressToken = progressTokenOf(this.#params);
    if (progressToken === undefined) return Promise.resolve();
    const body: Record<string, unknown> = { progressToken, progress };
    if (total !== undefined) body.total = total;
    if (message !== undefined) body.message = message;
    return this.#rpc.notify("notifications/progress", body);
  }
}
