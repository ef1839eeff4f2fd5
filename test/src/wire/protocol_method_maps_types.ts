// Type-level tests of src/wire/protocol, run by `npx tsc -p tsconfig.json` (this file has no runtime
// part). Each `// @ts-expect-error` line must fail to type-check: if a map grows too loose, tsc reports
// the directive as unused.
import type {
  CLIENT_NOTIFICATION_METHODS,
  CLIENT_REQUEST_METHODS,
  ClientNotificationMap,
  ClientRequestMap,
  ClientRequestParams,
  ClientRequestResult,
  Implementation,
  Legacy,
  LEGACY_CLIENT_NOTIFICATION_METHODS,
  LEGACY_CLIENT_REQUEST_METHODS,
  LEGACY_SERVER_NOTIFICATION_METHODS,
  LEGACY_SERVER_REQUEST_METHODS,
  LegacyClientNotificationMap,
  LegacyClientRequestMap,
  LegacyServerNotificationMap,
  LegacyServerRequestMap,
  LoggingLevel,
  Modern,
  MODERN_CLIENT_NOTIFICATION_METHODS,
  MODERN_CLIENT_REQUEST_METHODS,
  MODERN_INPUT_REQUEST_METHODS,
  MODERN_SERVER_NOTIFICATION_METHODS,
  ModernClientNotificationMap,
  ModernClientRequestMap,
  ModernInputRequestMap,
  ModernServerNotificationMap,
  ParamsAreOptional,
  RequestMeta,
  SERVER_NOTIFICATION_METHODS,
  SERVER_REQUEST_METHODS,
  ServerNotificationMap,
  ServerNotificationParams,
  ServerRequestMap,
  ServerRequestParams,
  ServerRequestResult,
} from "../../../src/wire/protocol/mod.ts";

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Extends<A, B> = [A] extends [B] ? true : false;
type Holds<T extends true> = T;
/** Fails to compile unless every value of `T` is `true`. */
type AllHold<T extends { [key: string]: true }> = T;

// --- keys: the maps, the era maps and the run-time method lists agree ---------------------------------

export type KeysMatchTheMethodLists = [
  Holds<Same<(typeof LEGACY_CLIENT_REQUEST_METHODS)[number], keyof LegacyClientRequestMap>>,
  Holds<Same<(typeof LEGACY_SERVER_REQUEST_METHODS)[number], keyof LegacyServerRequestMap>>,
  Holds<Same<(typeof LEGACY_CLIENT_NOTIFICATION_METHODS)[number], keyof LegacyClientNotificationMap>>,
  Holds<Same<(typeof LEGACY_SERVER_NOTIFICATION_METHODS)[number], keyof LegacyServerNotificationMap>>,
  Holds<Same<(typeof MODERN_CLIENT_REQUEST_METHODS)[number], keyof ModernClientRequestMap>>,
  Holds<Same<(typeof MODERN_INPUT_REQUEST_METHODS)[number], keyof ModernInputRequestMap>>,
  Holds<Same<(typeof MODERN_CLIENT_NOTIFICATION_METHODS)[number], keyof ModernClientNotificationMap>>,
  Holds<Same<(typeof MODERN_SERVER_NOTIFICATION_METHODS)[number], keyof ModernServerNotificationMap>>,
  Holds<Same<keyof ClientRequestMap, keyof LegacyClientRequestMap | keyof ModernClientRequestMap>>,
  Holds<Same<keyof ServerRequestMap, keyof LegacyServerRequestMap | keyof ModernInputRequestMap>>,
  Holds<
    Same<keyof ClientNotificationMap, keyof LegacyClientNotificationMap | keyof ModernClientNotificationMap>
  >,
  Holds<
    Same<keyof ServerNotificationMap, keyof LegacyServerNotificationMap | keyof ModernServerNotificationMap>
  >,
  Holds<Same<(typeof CLIENT_REQUEST_METHODS)[number], keyof ClientRequestMap>>,
  Holds<Same<(typeof SERVER_REQUEST_METHODS)[number], keyof ServerRequestMap>>,
  Holds<Same<(typeof CLIENT_NOTIFICATION_METHODS)[number], keyof ClientNotificationMap>>,
  Holds<Same<(typeof SERVER_NOTIFICATION_METHODS)[number], keyof ServerNotificationMap>>,
];

export type EraOnlyMethodsAreWhereTheSpecPutsThem = [
  Holds<
    Extends<
      "initialize" | "ping" | "logging/setLevel" | "resources/subscribe" | "resources/unsubscribe",
      keyof ClientRequestMap
    >
  >,
  Holds<Extends<"server/discover" | "subscriptions/listen", keyof ClientRequestMap>>,
  Holds<
    Same<
      Extract<
        "initialize" | "ping" | "logging/setLevel" | "resources/subscribe",
        keyof ModernClientRequestMap
      >,
      never
    >
  >,
  Holds<Same<Extract<"server/discover" | "subscriptions/listen", keyof LegacyClientRequestMap>, never>>,
  Holds<Same<keyof ModernClientNotificationMap, "notifications/cancelled">>,
  Holds<
    Extends<"ping" | "sampling/createMessage" | "elicitation/create" | "roots/list", keyof ServerRequestMap>
  >,
  Holds<Extends<"notifications/subscriptions/acknowledged", keyof ServerNotificationMap>>,
];

// --- wire → map: whatever a peer of either era sends fits the merged map ------------------------------

export type LegacyWireParamsFitTheMap = AllHold<
  {
    [K in keyof LegacyClientRequestMap]: Extends<
      LegacyClientRequestMap[K]["params"],
      ClientRequestMap[K]["params"]
    >;
  }
>;
export type ModernWireParamsFitTheMap = AllHold<
  {
    [K in keyof ModernClientRequestMap]: Extends<
      ModernClientRequestMap[K]["params"],
      ClientRequestMap[K]["params"]
    >;
  }
>;
export type LegacyWireResultsFitTheMap = AllHold<
  {
    [K in keyof LegacyClientRequestMap]: Extends<
      LegacyClientRequestMap[K]["result"],
      ClientRequestMap[K]["result"]
    >;
  }
>;
export type ModernWireResultsFitTheMap = AllHold<
  {
    [K in keyof ModernClientRequestMap]: Extends<
      ModernClientRequestMap[K]["result"],
      ClientRequestMap[K]["result"]
    >;
  }
>;
export type ServerRequestsFitTheMap = AllHold<
  & {
    [K in keyof LegacyServerRequestMap]: Extends<
      LegacyServerRequestMap[K]["params"],
      ServerRequestMap[K]["params"]
    >;
  }
  & {
    [K in keyof LegacyServerRequestMap]: Extends<
      LegacyServerRequestMap[K]["result"],
      ServerRequestMap[K]["result"]
    >;
  }
>;
export type InputRequestsFitTheMap = AllHold<
  & {
    [K in keyof ModernInputRequestMap]: Extends<
      ModernInputRequestMap[K]["params"],
      ServerRequestMap[K]["params"]
    >;
  }
  & {
    [K in keyof ModernInputRequestMap]: Extends<
      ModernInputRequestMap[K]["result"],
      ServerRequestMap[K]["result"]
    >;
  }
>;
export type NotificationsFitTheMap = AllHold<
  & {
    [K in keyof LegacyClientNotificationMap]: Extends<
      LegacyClientNotificationMap[K],
      ClientNotificationMap[K]
    >;
  }
  & {
    [K in keyof ModernClientNotificationMap]: Extends<
      ModernClientNotificationMap[K],
      ClientNotificationMap[K]
    >;
  }
  & {
    [K in keyof LegacyServerNotificationMap]: Extends<
      LegacyServerNotificationMap[K],
      ServerNotificationMap[K]
    >;
  }
  & {
    [K in keyof ModernServerNotificationMap]: Extends<
      ModernServerNotificationMap[K],
      ServerNotificationMap[K]
    >;
  }
>;

// --- map → wire: what a caller writes is valid on the wire once the library adds its part -------------

/** The modern envelope the client library writes into `params._meta`. */
type Envelope = { _meta: Modern.RequestMetaObject };
export type MapParamsFitLegacyWire = AllHold<
  {
    [K in keyof LegacyClientRequestMap]: Extends<
      ClientRequestMap[K]["params"],
      LegacyClientRequestMap[K]["params"]
    >;
  }
>;
export type MapParamsWithEnvelopeFitModernWire = AllHold<
  {
    [K in keyof ModernClientRequestMap]: Extends<
      ClientRequestMap[K]["params"] & Envelope,
      ModernClientRequestMap[K]["params"]
    >;
  }
>;
/** What the server library adds to a complete modern result of a cacheable method. */
type Filled = { resultType: "complete"; ttlMs: number; cacheScope: "public" | "private" };
type Complete<R> = Exclude<R, Modern.InputRequiredResult>;
export type HandlerResultsWithFilledFieldsFitModernWire = [
  Holds<Extends<ClientRequestResult<"tools/list"> & Filled, Modern.ListToolsResult>>,
  Holds<Extends<Complete<ClientRequestResult<"tools/call">> & Filled, Modern.CallToolResult>>,
  Holds<Extends<Complete<ClientRequestResult<"resources/read">> & Filled, Modern.ReadResourceResult>>,
  Holds<Extends<Complete<ClientRequestResult<"prompts/get">> & Filled, Modern.GetPromptResult>>,
  Holds<Extends<ClientRequestResult<"server/discover"> & Filled, Modern.DiscoverResult>>,
  Holds<Extends<ClientRequestResult<"completion/complete"> & Filled, Modern.CompleteResult>>,
];

// --- callers and handlers: concrete values ----------------------------------------------------------

export const callWithoutMeta: ClientRequestParams<"tools/call"> = { name: "echo", arguments: { text: "hi" } };
export const callWithProgress: ClientRequestParams<"tools/call"> = {
  name: "echo",
  _meta: { progressToken: 7 },
};
export const callRetry: ClientRequestParams<"tools/call"> = {
  name: "confirm",
  inputResponses: { ask: { action: "accept", content: { ok: true } } },
  requestState: "opaque",
};
export const callAsTask: ClientRequestParams<"tools/call"> = { name: "slow", task: { ttl: 60_000 } };
// @ts-expect-error tools/call needs a tool name
export const callWithoutName: ClientRequestParams<"tools/call"> = { arguments: {} };
// @ts-expect-error the tool name is a string
export const callWithNumericName: ClientRequestParams<"tools/call"> = { name: 1 };
// @ts-expect-error a progress token is a string or a number
export const badProgressToken: RequestMeta = { progressToken: true };

/** A handler reads every era's fields without narrowing first. */
export function readCall(
  params: ClientRequestParams<"tools/call">,
): [string, number | undefined, string | undefined, string | number | undefined] {
  return [params.name, params.task?.ttl, params.requestState, params._meta?.progressToken];
}
export function readDiscover(params: ClientRequestParams<"server/discover">): string | undefined {
  return params._meta?.["io.modelcontextprotocol/protocolVersion"];
}
export function readCancel(
  params: ClientNotificationMap["notifications/cancelled"],
): string | number | undefined {
  // @ts-expect-error requestId is optional in 2025-11-25 (tasks), so it may be undefined
  const id: string | number = params.requestId;
  return id ?? params.requestId;
}

export const listParams: ClientRequestParams<"tools/list"> = {};
export const listWithCursor: ClientRequestParams<"resources/list"> = { cursor: "page-2" };
export type ListParamsMayBeOmitted = Holds<ParamsAreOptional<ClientRequestParams<"tools/list">>>;
export type CallParamsMayNotBeOmitted = Holds<
  Same<ParamsAreOptional<ClientRequestParams<"tools/call">>, false>
>;
export type PingParamsMayBeOmitted = Holds<ParamsAreOptional<ClientRequestParams<"ping">>>;

export const legacyListResult: ClientRequestResult<"tools/list"> = {
  tools: [{ name: "echo", inputSchema: { type: "object" } }],
};
export const modernListResult: ClientRequestResult<"tools/list"> = {
  resultType: "complete",
  tools: [],
  nextCursor: "c2",
  ttlMs: 1000,
  cacheScope: "public",
};
// @ts-expect-error a tools/list result lists tools
export const listResultWithoutTools: ClientRequestResult<"tools/list"> = { nextCursor: "c2" };
// @ts-expect-error cacheScope is "public" or "private"
export const listResultWithBadScope: ClientRequestResult<"tools/list"> = { tools: [], cacheScope: "shared" };

export const callResult: ClientRequestResult<"tools/call"> = {
  content: [{ type: "text", text: "hi" }],
  isError: false,
};
export const inputRequired: ClientRequestResult<"tools/call"> = {
  resultType: "input_required",
  inputRequests: {
    ask: {
      method: "elicitation/create",
      params: { message: "Sure?", requestedSchema: { type: "object", properties: {} } },
    },
  },
};
export const inputRequiredOnPrompt: ClientRequestResult<"prompts/get"> = {
  resultType: "input_required",
  requestState: "s",
};
// @ts-expect-error a tool result needs content (and only tools/call, prompts/get, resources/read may ask for input)
export const callResultWithoutContent: ClientRequestResult<"tools/call"> = { isError: true };
// @ts-expect-error content blocks have a known type
export const callResultWithBadBlock: ClientRequestResult<"tools/call"> = {
  content: [{ type: "video", url: "x" }],
};

export const initialize: ClientRequestParams<"initialize"> = {
  protocolVersion: "2025-11-25",
  capabilities: {},
  clientInfo: { name: "client", version: "1.0.0" },
};
// @ts-expect-error initialize needs clientInfo
export const initializeWithoutInfo: ClientRequestParams<"initialize"> = {
  protocolVersion: "2025-11-25",
  capabilities: {},
};
export const setLevel: ClientRequestParams<"logging/setLevel"> = { level: "warning" };
// @ts-expect-error "verbose" is not a logging level
export const setBadLevel: ClientRequestParams<"logging/setLevel"> = { level: "verbose" };
export const subscribe: ClientRequestParams<"resources/subscribe"> = { uri: "file:///a.txt" };

export const discovered: ClientRequestResult<"server/discover"> = {
  supportedVersions: ["2026-07-28"],
  capabilities: { tools: {} },
};
// @ts-expect-error a DiscoverResult names its supported versions
export const discoveredWithoutVersions: ClientRequestResult<"server/discover"> = { capabilities: {} };
export const listen: ClientRequestParams<"subscriptions/listen"> = {
  notifications: { toolsListChanged: true, resourceSubscriptions: ["file:///a.txt"] },
};
export const listenBadFilter: ClientRequestParams<"subscriptions/listen"> = {
  // @ts-expect-error resourceSubscriptions is a list of URIs
  notifications: { resourceSubscriptions: "file:///a.txt" },
};
export const listenEnded: ClientRequestResult<"subscriptions/listen"> = {
  resultType: "complete",
  _meta: { "io.modelcontextprotocol/subscriptionId": 4 },
};

export const elicitForm: ServerRequestParams<"elicitation/create"> = {
  message: "Your name?",
  requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
};
export const elicitUrl: ServerRequestParams<"elicitation/create"> = {
  mode: "url",
  message: "Sign in",
  url: "https://example.com",
  elicitationId: "e1",
};
// @ts-expect-error URL mode needs a URL
export const elicitUrlWithoutUrl: ServerRequestParams<"elicitation/create"> = {
  mode: "url",
  message: "Sign in",
};
export const elicitAnswer: ServerRequestResult<"elicitation/create"> = {
  action: "accept",
  content: { name: "Ada" },
};
// @ts-expect-error the action is accept, decline or cancel
export const elicitBadAnswer: ServerRequestResult<"elicitation/create"> = { action: "ok" };
export const roots: ServerRequestResult<"roots/list"> = { roots: [{ uri: "file:///work", name: "work" }] };
export const sampled: ServerRequestResult<"sampling/createMessage"> = {
  role: "assistant",
  content: { type: "text", text: "hi" },
  model: "m",
};
// @ts-expect-error a sampling result names its model
export const sampledWithoutModel: ServerRequestResult<"sampling/createMessage"> = {
  role: "assistant",
  content: { type: "text", text: "hi" },
};

export const cancelled: ClientNotificationMap["notifications/cancelled"] = { requestId: 3, reason: "user" };
export const progress: ServerNotificationParams<"notifications/progress"> = {
  progressToken: "t",
  progress: 0.5,
  total: 1,
};
// @ts-expect-error progress needs its token
export const progressWithoutToken: ServerNotificationParams<"notifications/progress"> = { progress: 1 };
export const acknowledged: ServerNotificationParams<"notifications/subscriptions/acknowledged"> = {
  _meta: { "io.modelcontextprotocol/subscriptionId": 4 },
  notifications: { toolsListChanged: true },
};
// @ts-expect-error an acknowledgement says which notifications the server honours
export const acknowledgedWithoutFilter: ServerNotificationParams<"notifications/subscriptions/acknowledged"> =
  {};
export const listChanged: ServerNotificationParams<"notifications/tools/list_changed"> = {};
export const log: ServerNotificationParams<"notifications/message"> = {
  level: "info",
  data: { any: "json" },
};

// @ts-expect-error servers do not call tools on clients
export type NoToolsCallFromServer = ServerRequestMap["tools/call"];
// @ts-expect-error no such method
export type NoSuchMethod = ClientRequestMap["tools/run"];

// --- the namespaces and the shared types ---------------------------------------------------------------

export const legacyInitialize: Legacy.InitializeRequest = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
};
export const modernCall: Modern.CallToolRequest = {
  jsonrpc: "2.0",
  id: "a",
  method: "tools/call",
  params: {
    name: "echo",
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    },
  },
};
export const modernCallWithoutEnvelope: Modern.CallToolRequest = {
  jsonrpc: "2.0",
  id: "a",
  method: "tools/call",
  // @ts-expect-error a modern request carries the _meta envelope
  params: { name: "echo" },
};
// @ts-expect-error the modern revision has no initialize
export type ModernInitialize = Modern.InitializeRequest;
// @ts-expect-error the legacy revision has no server/discover
export type LegacyDiscover = Legacy.DiscoverRequest;
export type SharedTypesAreTheRevisionsTypes = [
  Holds<Same<Implementation, Legacy.Implementation>>,
  Holds<Same<Implementation, Modern.Implementation>>,
  Holds<Same<LoggingLevel, Modern.LoggingLevel>>,
];
export const info: Implementation = { name: "server", version: "1.0.0", title: "Server" };
// @ts-expect-error an Implementation has a version
export const infoWithoutVersion: Implementation = { name: "server" };
