/**
 * The parts a `ContextClient` is made of, wired together once at construction: the
 * reporter, the inputs, the declared capabilities, the server message router, the feature API, the
 * request sender and the session lifecycle.
 * @module
 */
import type { EraCacheStore } from "./era_cache.ts";
import { asError } from "../wire/errors.ts";
import { systemTimeProvider } from "../stream/time_provider.ts";
import { ClientFeatures } from "./features/client_features.ts";
import { ClientInputs } from "./client_inputs.ts";
import { McpTelemetry } from "../telemetry/mcp_telemetry.ts";
import type { ClientRequestOptions, ContextClientOptions } from "./context_client_options.ts";
import type { Capabilities, Era } from "../wire/protocol_versions.ts";
import type { ConnectionCloseInfo } from "../rpc/connection_state.ts";
import { type ClientSession, SessionLifecycle } from "./client_session.ts";
import { DeclaredCapabilities } from "./declared_capabilities.ts";
import { RequestSender } from "./request_sender.ts";
import { ServerMessageRouter } from "./server_message_router.ts";

/**
 * What the parts use of the client they make up: part of its public surface (`ContextClient` fits).
 * Declared here so this module need not import the client that assembles it.
 */
export interface ClientCore {
  readonly era: Era;
  readonly serverCapabilities: Capabilities;
  readonly closed: Promise<ConnectionCloseInfo>;
  request(method: string, params?: Record<string, unknown>, options?: ClientRequestOptions): Promise<unknown>;
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
}

/** A client's parts (see the module note). */
export interface ClientParts {
  /** Hands an error to `onReport`; a failing reporter is ignored. */
  report(error: Error): void;
  /** After connect: roots changed, a legacy server is told (the modern era has no such notification). */
  watchRoots(): void;
  telemetry: McpTelemetry;
  /** When the client was made, on the telemetry clock (the session duration starts here). */
  sessionStart: number;
  inputs: ClientInputs;
  capabilities: DeclaredCapabilities;
  router: ServerMessageRouter;
  features: ClientFeatures;
  sender: RequestSender;
  lifecycle: SessionLifecycle;
}

/** Where a client's era is remembered. */
export interface ClientEraCache {
  cache: EraCacheStore | undefined;
  cacheKey: string | undefined;
}

/**
 * Makes the parts of `client` with `options`; `session` reads the client's session (undefined
 * until connect settled it).
 */
export function assembleClientParts(
  client: ClientCore,
  session: () => ClientSession | undefined,
  options: ContextClientOptions,
  era: ClientEraCache,
): ClientParts {
  const time = options.timeProvider ?? systemTimeProvider;
  const telemetry = new McpTelemetry("client", time, options.telemetry);
  const sessionStart = telemetry.now();
  const report = (error: Error) => {
    try {
      options.onReport?.(error);
    } catch {
      // A failing reporter must not break the client.
    }
  };
  const inputs = options.inputs ?? new ClientInputs({ timeProvider: options.timeProvider });
  const router: ServerMessageRouter = new ServerMessageRouter({
    inputs,
    era: () => session()?.era,
    features: (method, params) => features.dispatchNotification(method, params),
  });
  const features: ClientFeatures = new ClientFeatures({
    era: () => client.era,
    serverCapabilities: () => client.serverCapabilities,
    time,
    // The feature API runs the input_required rounds itself (the same loop, with its typed errors and per-call timeouts): raw results here.
    request: (method, params, o) =>
      client.request(method, params as Record<string, unknown>, { ...o, inputRequired: "manual" }),
    closed: () => client.closed,
    report,
    // Connected through an `ExchangeTransport` (HTTP): each request on its own connection.
    separateRequests: () => {
      const current = session();
      return current !== undefined && current.live.rpc === undefined;
    },
    relatedNotification: (method, params) => router.dispatchNotification(method, params),
    answerInputRequest: router.answerInput,
    get stateOnlyRetryDelay() {
      return inputs.stateOnlyRetryDelay;
    },
  }, options.features);
  const capabilities = new DeclaredCapabilities(options, inputs);
  const sender = new RequestSender({
    session,
    clientOptions: options,
    capabilities,
    inputs,
    answerInput: router.answerInput,
    telemetry,
    cache: era.cache,
    cacheKey: era.cacheKey,
    report,
  });
  const lifecycle = new SessionLifecycle(report);
  const watchRoots = () => {
    inputs.onRootsChanged(() => {
      if (session()?.era === "legacy") {
        client.notify("notifications/roots/list_changed").catch((error: unknown) => report(asError(error)));
      }
    });
  };
  return {
    report,
    watchRoots,
    telemetry,
    sessionStart,
    inputs,
    capabilities,
    router,
    features,
    sender,
    lifecycle,
  };
}
