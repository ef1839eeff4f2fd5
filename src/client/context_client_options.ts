/**
 * The options of {@linkcode ContextClient}: what `connect` takes, what one `request` takes, the
 * handler types of `handle` and `onNotification`, and the check `connect` runs on its options.
 * @module
 */
import type { EraCacheStore } from "./era_cache.ts";
import { defaultEraCache } from "./era_cache.ts";
import { InvalidOptionError } from "../wire/errors.ts";
import type { JsonRpcConnectionOptions, RequestContext } from "../rpc/json_rpc_connection.ts";
import { numberOption } from "../stream/options.ts";
import type { Capabilities, Implementation } from "../wire/protocol_versions.ts";
import { systemTimeProvider, type TimeProvider } from "../stream/time_provider.ts";
import type { RelatedNotificationHandler } from "./client_exchange.ts";
import type { ClientFeatureOptions } from "./features/client_features.ts";
import type { RequestId } from "../wire/protocol/mod.ts";
import type { ClientInputs } from "./client_inputs.ts";
import type { TelemetryOptions } from "../telemetry/mcp_telemetry.ts";
import { checkConnectionNesting } from "../rpc/connection_options.ts";

/** The bounds of the client's connection: every {@linkcode JsonRpcConnectionOptions} the client does not set itself. */
export type ClientConnectionOptions = Omit<
  JsonRpcConnectionOptions,
  "onRequest" | "onNotification" | "isBarrier" | "onReport" | "timeProvider"
>;

/** Options of {@linkcode ContextClient.connect}. Client-level options are top level; the connection's bounds sit under `connection`. */
export interface ContextClientOptions {
  /**
   * `"auto"` probes modern first and falls back; `"modern"` and `"legacy"` insist. Default `"auto"`.
   * @default "auto"
   */
  era?: "auto" | "modern" | "legacy";
  /**
   * How long a `server/discover` probe may go unanswered before legacy fallback. Default 5 000 ms.
   * @default 5000
   */
  probeTimeout?: number;
  /**
   * Added to the first probe of a newly spawned process (`newlySpawned`). Default 10 000 ms.
   * @default 10000
   */
  processStartupAllowance?: number;
  /**
   * Bounds the whole connect: probes, fallback, respawn and `initialize`. Default 30 000 ms.
   * @default 30000
   */
  connectTimeout?: number;
  /**
   * Where eras are remembered. Default: a shared in-memory {@linkcode EraCache}; `null` turns caching off.
   * @default a shared in-memory {@linkcode EraCache}
   */
  eraCache?: EraCacheStore | null;
  /**
   * The server's key in the cache. Default: the transport's `cacheKey`; a bare duplex has none (no caching).
   * @default the transport's `cacheKey`
   */
  cacheKey?: string;
  /**
   * Who this client is. Default `{ name: "onemodelcontext", version: "0.1.0" }`.
   * @default `{ name
   */
  clientInfo?: Implementation;
  /**
   * What this client can do, beyond what `inputs` implies (these win on a clash). Default `{}`.
   * @default {}
   */
  capabilities?: Capabilities;
  /** Options of the feature API (`listTools`, `callTool`, `listen`…): bounds, timeouts, cache, validator. */
  features?: ClientFeatureOptions;
  /**
   * What servers may ask this client (elicitation, sampling, roots): the handlers' capabilities are
   * declared (in `initialize`, and in every modern request's `_meta`), legacy server requests are
   * answered, and modern `input_required` results are fulfilled and retried. Register legacy-era
   * handlers here, before connecting: `initialize` declares them once. Default: an empty
   * {@linkcode ClientInputs} (see {@linkcode ContextClient.onElicit} and friends).
   */
  inputs?: ClientInputs;
  /**
   * The clock of every deadline. Default: the system clock.
   * @default the system clock
   */
  timeProvider?: TimeProvider;
  /**
   * OpenTelemetry spans and metrics (MCP semantic conventions) through `@opentelemetry/api`, when an
   * SDK is registered; the trace context travels in `params._meta`. `enabled` (default `true`),
   * `maxSpanEvents` (default 16). See docs/observability.md.
   */
  telemetry?: TelemetryOptions;
  /** Every bad thing that is nobody's exception: stray server output, unknown reply ids, cache failures. */
  onReport?: (error: Error) => void;
  /**
   * Bounds of the connection (`shutdownTimeout`, `maxConcurrentRequests`, …; its stream's under
   * `channel`). `answerInvalidInput` defaults to `false` here: a server's stray stdout lines are
   * reported, never answered.
   */
  connection?: ClientConnectionOptions;
}

/** Options of one {@linkcode ContextClient.request}. */
export interface ClientRequestOptions {
  /** Aborting sends `notifications/cancelled` and rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Receives the notifications tied to this request while it is pending (on a stream: the
   * `notifications/progress` that carry its `params._meta.progressToken`), instead of the handlers
   * of {@linkcode ContextClient.onNotification}.
   */
  onNotification?: RelatedNotificationHandler;
  /**
   * The JSON-RPC id to send. Default: the next value of the connection's counter.
   * @default the next value of the connection's counter
   */
  id?: RequestId;
  /** Modern `input_required` results: `"auto"` (default) fulfils them through `inputs` and retries; `"manual"` returns them. */
  inputRequired?: "auto" | "manual";
  /**
   * Retries `input_required` may cause before the request fails. Default: the `inputs`' `maxInputRounds` (10).
   * @default the `inputs`' `maxInputRounds` (10)
   */
  maxInputRounds?: number;
  /**
   * Modern era: the client capabilities this request's envelope declares instead of this client's
   * own (a gateway passing on another client's request, with `inputRequired: "manual"`). Ignored in
   * the legacy era, where `initialize` declared them.
   */
  clientCapabilities?: Capabilities;
  /**
   * Marks the request safe to repeat: over HTTP, a response stream that breaks before the reply
   * re-issues it once with a new id instead of rejecting. Default `false`.
   * @default false
   */
  idempotent?: boolean;
}

/** Answers one server-to-client request; the value becomes the result, a thrown `JsonRpcError` the error reply. */
export type ClientRequestHandler<P = unknown, R = unknown> = (
  params: P,
  context: RequestContext,
) => R | Promise<R>;
/** Handles one notification from the server. */
export type ClientNotificationHandler<P = unknown> = (params: P) => unknown;

/** Who this client says it is when `clientInfo` is not given. */
export const DEFAULT_CLIENT_INFO: Implementation = { name: "onemodelcontext", version: "0.1.0" };

/** What `connect` reads from its options, checked and with the defaults filled in. */
export interface ConnectSettings {
  era: "auto" | "modern" | "legacy";
  probeTimeout: number;
  processStartupAllowance: number;
  connectTimeout: number;
  cache: EraCacheStore | undefined;
  time: TimeProvider;
  clientInfo: Implementation;
}

/** Checks `connect`'s options and fills in the defaults; throws `InvalidOptionError` on a bad one. */
export function readConnectOptions(options: ContextClientOptions): ConnectSettings {
  const era = options.era ?? "auto";
  if (era !== "auto" && era !== "modern" && era !== "legacy") {
    throw new InvalidOptionError(
      `Option era must be "auto", "modern" or "legacy", got ${JSON.stringify(era)}`,
    );
  }
  checkConnectionNesting(options, options.connection);
  const probeTimeout = numberOption("probeTimeout", options.probeTimeout, 5_000);
  const processStartupAllowance = numberOption(
    "processStartupAllowance",
    options.processStartupAllowance,
    10_000,
  );
  const connectTimeout = numberOption("connectTimeout", options.connectTimeout, 30_000);
  return {
    era,
    probeTimeout,
    processStartupAllowance,
    connectTimeout,
    cache: options.eraCache === null ? undefined : options.eraCache ?? defaultEraCache,
    time: options.timeProvider ?? systemTimeProvider,
    clientInfo: options.clientInfo ?? DEFAULT_CLIENT_INFO,
  };
}
