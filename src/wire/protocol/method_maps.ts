/**
 * The method maps both eras share: one entry per method of 2025-11-25 or 2026-07-28, typed as a
 * caller sends it and as a handler receives or returns it, whichever era the connection speaks.
 * The client's `request`/`notify` and the server's `handle` take these maps as their generics.
 *
 * How an entry is formed from the two revisions' exact maps (`./era_method_maps.ts`):
 * - A method of one era only keeps that era's shape (e.g. `initialize`, `server/discover`).
 * - A method of both eras gets every property of either; a property is required only when both
 *   require it, and its type is the union of the two (e.g. `tools/call` params have `task?` from
 *   2025-11-25 and `inputResponses?`/`requestState?` from 2026-07-28). When either era's params are
 *   a union (`elicitation/create`), the entry is the union of the two instead.
 * - Request params: `_meta` is optional and typed {@link RequestMeta}. The library writes the modern
 *   envelope keys (`io.modelcontextprotocol/protocolVersion`, `…/clientCapabilities`, `…/clientInfo`)
 *   itself, so a caller never has to; a caller may still add `progressToken` or its own keys, and a
 *   handler reads whatever the peer sent.
 * - Results: the fields the library fills on modern results are optional (`resultType` — absent
 *   means `"complete"` —, and `ttlMs`/`cacheScope` of cacheable results). `InputRequiredResult`
 *   stays a separate member of the union where the modern schema allows it (`tools/call`,
 *   `prompts/get`, `resources/read`).
 * - Legacy task-augmented requests (`params.task`) answer with `Legacy.CreateTaskResult`; the maps
 *   give the plain result.
 * @module
 */
import type * as M from "./v2026_07_28.ts";
import {
  LEGACY_CLIENT_NOTIFICATION_METHODS,
  LEGACY_CLIENT_REQUEST_METHODS,
  LEGACY_SERVER_NOTIFICATION_METHODS,
  LEGACY_SERVER_REQUEST_METHODS,
  type LegacyClientNotificationMap,
  type LegacyClientRequestMap,
  type LegacyServerNotificationMap,
  type LegacyServerRequestMap,
  MODERN_CLIENT_NOTIFICATION_METHODS,
  MODERN_CLIENT_REQUEST_METHODS,
  MODERN_INPUT_REQUEST_METHODS,
  MODERN_SERVER_NOTIFICATION_METHODS,
  type ModernClientNotificationMap,
  type ModernClientRequestMap,
  type ModernInputRequestMap,
  type ModernServerNotificationMap,
} from "./era_method_maps.ts";

/**
 * The `_meta` of request params as a caller writes it: every key optional, including the modern
 * envelope keys that the library fills in.
 * @example
 * ```ts
 * const meta: RequestMeta = { progressToken: "upload-1", "com.example/trace": "abc" };
 * ```
 */
export type RequestMeta = Partial<M.RequestMetaObject>;

// --- type helpers (not exported) -------------------------------------------------------------------

/** The declared property names of `T`, without its index signatures. */
type KnownKeys<T> = keyof {
  [K in keyof T as string extends K ? never : number extends K ? never : symbol extends K ? never : K]: 0;
};
/** The type of declared property `K` of `T`; `never` when `T` only has it through an index signature. */
type FieldOf<T, K> = K extends KnownKeys<T> & keyof T ? T[K] : never;
/** Whether `T` may lack property `K`: declared optional, or not declared at all. */
// deno-lint-ignore ban-types
type IsOptional<T, K> = K extends KnownKeys<T> & keyof T ? ({} extends Pick<T, K> ? true : false) : true;
type HasIndex<T> = string extends keyof T ? true : false;
type IsUnion<T, U = T> = [T] extends [never] ? false
  : T extends unknown ? ([U] extends [T] ? false : true)
  : never;
// deno-lint-ignore ban-types
type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** Every property of `A` or `B`; required when required in both; typed as the union of both. */
type MergeObjects<A, B> = Simplify<
  & {
    [
      K in KnownKeys<A> | KnownKeys<B> as IsOptional<A, K> extends true ? never
        : IsOptional<B, K> extends true ? never
        : K
    ]:
      | FieldOf<A, K>
      | FieldOf<B, K>;
  }
  & {
    [
      K in KnownKeys<A> | KnownKeys<B> as IsOptional<A, K> extends true ? K
        : IsOptional<B, K> extends true ? K
        : never
    ]?:
      | FieldOf<A, K>
      | FieldOf<B, K>;
  }
  & (HasIndex<A> extends true ? { [key: string]: unknown }
    : HasIndex<B> extends true ? { [key: string]: unknown }
    // deno-lint-ignore ban-types
    : {})
>;

/** `A` and `B` merged; one of them when the other is `never` (a method of one era); their union when either is a union. */
type MergeEras<A, B> = [A] extends [never] ? B
  : [B] extends [never] ? A
  : IsUnion<A> extends true ? A | B
  : IsUnion<B> extends true ? A | B
  : MergeObjects<A, B>;

/** `T` without the properties `K`; unlike `Omit`, keeps the declared properties of a type with an index signature. */
type Without<T, K extends PropertyKey> = { [P in keyof T as P extends K ? never : P]: T[P] };

/** Request params with `_meta` optional and typed {@link RequestMeta}. */
type CallerParams<P> = [P] extends [never] ? never
  : P extends unknown ? Simplify<Without<P, "_meta"> & { _meta?: RequestMeta }>
  : never;

type LibraryFilledKeys = "resultType" | "ttlMs" | "cacheScope";
type SameType<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** A result with the fields the library fills made optional; `InputRequiredResult` stays as declared. */
type HandlerResult<R> = [R] extends [never] ? never
  : R extends unknown ? SameType<R, M.InputRequiredResult> extends true ? R
    : Simplify<Without<R, LibraryFilledKeys> & { [K in LibraryFilledKeys & KnownKeys<R>]?: R[K] }>
  : never;
type CompleteOf<R> = R extends unknown ? (SameType<R, M.InputRequiredResult> extends true ? never : R)
  : never;
type InputRequiredOf<R> = R extends unknown ? (SameType<R, M.InputRequiredResult> extends true ? R : never)
  : never;

type ParamsIn<Map, K> = K extends keyof Map ? (Map[K] extends { params: infer P } ? P : never) : never;
type ResultIn<Map, K> = K extends keyof Map ? (Map[K] extends { result: infer R } ? R : never) : never;
type NotificationIn<Map, K> = K extends keyof Map ? Map[K] : never;

// --- the maps --------------------------------------------------------------------------------------

/**
 * Every client→server request of both eras: method → `{ params, result }`.
 * 2025-11-25 only: `initialize`, `ping`, `logging/setLevel`, `resources/subscribe`,
 * `resources/unsubscribe`, `tasks/*`. 2026-07-28 only: `server/discover`, `subscriptions/listen`.
 * @example
 * ```ts
 * type Call = ClientRequestMap["tools/call"];
 * const params: Call["params"] = { name: "echo", arguments: { text: "hi" } };
 * ```
 */
export type ClientRequestMap = {
  [K in keyof LegacyClientRequestMap | keyof ModernClientRequestMap]: {
    params: MergeEras<
      CallerParams<ParamsIn<LegacyClientRequestMap, K>>,
      CallerParams<ParamsIn<ModernClientRequestMap, K>>
    >;
    result:
      | MergeEras<
        HandlerResult<ResultIn<LegacyClientRequestMap, K>>,
        HandlerResult<CompleteOf<ResultIn<ModernClientRequestMap, K>>>
      >
      | InputRequiredOf<ResultIn<ModernClientRequestMap, K>>;
  };
};

/**
 * Every server→client request: method → `{ params, result }`. In 2025-11-25 these are JSON-RPC
 * requests (`ping`, `sampling/createMessage`, `roots/list`, `elicitation/create`, `tasks/*`); in
 * 2026-07-28 the server sends none, but embeds `sampling/createMessage`, `roots/list` and
 * `elicitation/create` in an `input_required` result, and the client answers them with the same
 * result shapes, so one client handler serves both eras.
 */
export type ServerRequestMap = {
  [K in keyof LegacyServerRequestMap | keyof ModernInputRequestMap]: {
    params: MergeEras<ParamsIn<LegacyServerRequestMap, K>, ParamsIn<ModernInputRequestMap, K>>;
    result: MergeEras<ResultIn<LegacyServerRequestMap, K>, ResultIn<ModernInputRequestMap, K>>;
  };
};

/**
 * Every client→server notification of both eras: method → `params`. 2026-07-28 keeps only
 * `notifications/cancelled`.
 */
export type ClientNotificationMap = {
  [K in keyof LegacyClientNotificationMap | keyof ModernClientNotificationMap]: MergeEras<
    NotificationIn<LegacyClientNotificationMap, K>,
    NotificationIn<ModernClientNotificationMap, K>
  >;
};

/**
 * Every server→client notification of both eras: method → `params`. 2025-11-25 only:
 * `notifications/elicitation/complete`, `notifications/tasks/status`; 2026-07-28 only:
 * `notifications/subscriptions/acknowledged`.
 */
export type ServerNotificationMap = {
  [K in keyof LegacyServerNotificationMap | keyof ModernServerNotificationMap]: MergeEras<
    NotificationIn<LegacyServerNotificationMap, K>,
    NotificationIn<ModernServerNotificationMap, K>
  >;
};

/** The params of client→server request `K`. @example `ClientRequestParams<"tools/call">` */
export type ClientRequestParams<K extends keyof ClientRequestMap> = ClientRequestMap[K]["params"];
/** The result of client→server request `K`. @example `ClientRequestResult<"tools/list">` */
export type ClientRequestResult<K extends keyof ClientRequestMap> = ClientRequestMap[K]["result"];
/** The params of server→client request `K`. @example `ServerRequestParams<"elicitation/create">` */
export type ServerRequestParams<K extends keyof ServerRequestMap> = ServerRequestMap[K]["params"];
/** The result of server→client request `K`. @example `ServerRequestResult<"roots/list">` */
export type ServerRequestResult<K extends keyof ServerRequestMap> = ServerRequestMap[K]["result"];
/** The params of client→server notification `K`. */
export type ClientNotificationParams<K extends keyof ClientNotificationMap> = ClientNotificationMap[K];
/** The params of server→client notification `K`. */
export type ServerNotificationParams<K extends keyof ServerNotificationMap> = ServerNotificationMap[K];

/**
 * `true` when a message's params have no required property, so a caller may omit them.
 * @example `ParamsAreOptional<ClientRequestParams<"tools/list">>` is `true`.
 */
// deno-lint-ignore ban-types
export type ParamsAreOptional<P> = {} extends P ? true : false;

// --- the method names at run time ------------------------------------------------------------------

function union<const A extends readonly string[], const B extends readonly string[]>(
  a: A,
  b: B,
): readonly (A[number] | B[number])[] {
  return Object.freeze([...new Set<A[number] | B[number]>([...a, ...b])]);
}

/** The keys of {@link ClientRequestMap}: 2025-11-25's methods in schema order, then 2026-07-28's new ones. */
export const CLIENT_REQUEST_METHODS: readonly (keyof ClientRequestMap)[] = union(
  LEGACY_CLIENT_REQUEST_METHODS,
  MODERN_CLIENT_REQUEST_METHODS,
);
/** The keys of {@link ServerRequestMap}. */
export const SERVER_REQUEST_METHODS: readonly (keyof ServerRequestMap)[] = union(
  LEGACY_SERVER_REQUEST_METHODS,
  MODERN_INPUT_REQUEST_METHODS,
);
/** The keys of {@link ClientNotificationMap}. */
export const CLIENT_NOTIFICATION_METHODS: readonly (keyof ClientNotificationMap)[] = union(
  LEGACY_CLIENT_NOTIFICATION_METHODS,
  MODERN_CLIENT_NOTIFICATION_METHODS,
);
/** The keys of {@link ServerNotificationMap}. */
export const SERVER_NOTIFICATION_METHODS: readonly (keyof ServerNotificationMap)[] = union(
  LEGACY_SERVER_NOTIFICATION_METHODS,
  MODERN_SERVER_NOTIFICATION_METHODS,
);
