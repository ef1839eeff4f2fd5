/**
 * `ContextServerOptions`: what a {@linkcode ContextServer} is configured with, and the checks that
 * reject a bad option when the server is built.
 * @module
 */
import { InvalidOptionError } from "../wire/errors.ts";
import type { CacheScope } from "../wire/discover_result.ts";
import { isPlainObject } from "../wire/meta_envelope.ts";
import { integerOption, numberOption } from "../stream/options.ts";
import type { TimeProvider } from "../stream/time_provider.ts";
import type { Capabilities } from "../wire/protocol_versions.ts";
import { ServerVersions } from "../wire/server_versions.ts";
import type { JsonRpcConnectionOptions } from "../rpc/json_rpc_connection.ts";
import type { ServerFeaturesOptions } from "./features/server_features.ts";
import type { RequestStateCodec, RequestStateCodecOptions } from "./input/request_state.ts";
import type { TelemetryOptions } from "../telemetry/mcp_telemetry.ts";
import { checkConnectionNesting } from "../rpc/connection_options.ts";

/** The bounds of each served connection: every {@linkcode JsonRpcConnectionOptions} the server does not set itself. */
export type ServerConnectionOptions = Omit<
  JsonRpcConnectionOptions,
  "onRequest" | "onNotification" | "isBarrier" | "onReport" | "timeProvider"
>;

/** Options of {@linkcode ContextServer}. Server-level options are top level; each connection's bounds sit under `connection`. */
export interface ContextServerOptions {
  /** `serverInfo.name`. */
  name: string;
  /** `serverInfo.version`. */
  version: string;
  /** `serverInfo.title`, for display. */
  title?: string;
  /**
   * Server capabilities, merged over those derived from registered tools, resources and prompts. Default `{}`.
   * @default {}
   */
  capabilities?: Capabilities;
  /** Page size and list cache hints of tools, resources and prompts (see {@linkcode ServerFeaturesOptions}). */
  features?: ServerFeaturesOptions;
  /** Sent in `InitializeResult` and `DiscoverResult` when set. */
  instructions?: string;
  /**
   * Versions this server speaks, of either era. Default: every legacy and modern version this library knows.
   * @default every legacy and modern version this library knows
   */
  supportedVersions?: readonly string[];
  /**
   * `ttlMs` of the `server/discover` result. Default 0 (immediately stale), as the MCP TypeScript SDK.
   * @default 0
   */
  discoverTtlMs?: number;
  /**
   * `cacheScope` of the `server/discover` result. Default `"private"`.
   * @default "private"
   */
  cacheScope?: CacheScope;
  /**
   * A request that carries no modern `_meta` envelope and arrives before any `initialize` on its
   * connection: `"reject"` (default) answers -32602, as the Python SDK does; `"legacy"` serves it in
   * the legacy era at the newest legacy version, as the TypeScript SDK does. `ping` is always answered.
   */
  unenvelopedRequests?: "reject" | "legacy";
  /**
   * The clock of every deadline. Default: the system clock.
   * @default the system clock
   */
  timeProvider?: TimeProvider;
  /**
   * How modern `requestState` is sealed (see {@linkcode RequestStateCodec}): `key` (32+ bytes or 64
   * hex characters; give every replica the same one; default a random per-process key), `stateTtl`
   * (default 600 000 ms), size bounds. A ready codec may be passed instead.
   */
  requestState?: RequestStateCodecOptions | RequestStateCodec;
  /**
   * Legacy: how long `ctx.elicit`/`ctx.sample`/`ctx.listRoots` wait for the client's reply. Default 60 000 ms.
   * @default 60000
   */
  clientRequestTimeout?: number;
  /** Every bad thing that is nobody's exception: bad input, handler failures (in full, stack included), unknown reply ids. */
  onReport?: (error: Error) => void;
  /**
   * A request handler's unexpected exception (not a `JsonRpcError`) is answered -32603 with the
   * message "Internal error", and the exception goes to `onReport` only; `true` sends its message to
   * the client too, for development. Default `false`.
   * @default false
   */
  exposeInternalErrors?: boolean;
  /**
   * OpenTelemetry spans and metrics (MCP semantic conventions) through `@opentelemetry/api`, when an
   * SDK is registered: `enabled` (default `true`), `maxSpanEvents` (default 16). See docs/observability.md.
   */
  telemetry?: TelemetryOptions;
  /** Bounds of each served connection (`endOfStreamTimeout`, `maxConcurrentRequests`, …; its stream's under `channel`). */
  connection?: ServerConnectionOptions;
}

/**
 * Throws an {@linkcode InvalidOptionError} naming the first bad option, checked in the order the
 * server reads them; returns the `discoverTtlMs` and the versions to use.
 */
export function checkContextServerOptions(
  options: ContextServerOptions,
): { ttlMs: number; versions: ServerVersions } {
  const {
    name,
    version,
    capabilities = {},
    instructions,
    discoverTtlMs,
    supportedVersions,
    cacheScope,
    unenvelopedRequests,
    exposeInternalErrors,
    connection,
  } = options ?? ({} as ContextServerOptions);
  if (typeof name !== "string" || name.length === 0) {
    throw new InvalidOptionError("Option name must be a non-empty string");
  }
  if (typeof version !== "string") {
    throw new InvalidOptionError(`Option version must be a string, got ${typeof version}`);
  }
  if (!isPlainObject(capabilities)) {
    throw new InvalidOptionError("Option capabilities must be an object (omit it for none)");
  }
  if (instructions !== undefined && typeof instructions !== "string") {
    throw new InvalidOptionError("Option instructions must be a string");
  }
  if (cacheScope !== undefined && cacheScope !== "public" && cacheScope !== "private") {
    throw new InvalidOptionError(
      `Option cacheScope must be "public" or "private", got ${JSON.stringify(cacheScope)}`,
    );
  }
  if (
    unenvelopedRequests !== undefined && unenvelopedRequests !== "reject" &&
    unenvelopedRequests !== "legacy"
  ) {
    throw new InvalidOptionError(
      `Option unenvelopedRequests must be "reject" or "legacy", got ${JSON.stringify(unenvelopedRequests)}`,
    );
  }
  if (exposeInternalErrors !== undefined && typeof exposeInternalErrors !== "boolean") {
    throw new InvalidOptionError(
      `Option exposeInternalErrors must be a boolean, got ${typeof exposeInternalErrors}`,
    );
  }
  checkConnectionNesting(options, connection);
  const ttlMs = Math.floor(numberOption("discoverTtlMs", discoverTtlMs, 0));
  const versions = new ServerVersions(supportedVersions);
  // Fail on bad connection bounds now rather than on the first connection.
  numberOption("endOfStreamTimeout", connection?.endOfStreamTimeout, 0);
  numberOption("shutdownTimeout", connection?.shutdownTimeout, 0);
  integerOption("maxConcurrentRequests", connection?.maxConcurrentRequests, 1, 1);
  return { ttlMs, versions };
}
