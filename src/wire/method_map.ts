/**
 * Method maps: the types that tie a JSON-RPC method name to its params and result, so that
 * `server.handle(method, …)` and `client.request(method, …)` are typed end to end.
 * @module
 */

/** What one request method carries: its params and its result. */
export interface MethodSpec {
  params?: unknown;
  result?: unknown;
}

/**
 * A map of method name → {@linkcode MethodSpec}. Written as `Map extends MethodMap<Map>` so that a
 * plain interface (which has no index signature) qualifies:
 *
 * @example
 * ```ts
 * interface MyMethods { "tools/call": { params: { name: string }; result: { content: unknown[] } } }
 * const server = new ContextServer<MyMethods>({ name: "s", version: "1", capabilities: {} });
 * ```
 */
export type MethodMap<Map = object> = { readonly [K in keyof Map]: MethodSpec };

/** The map that knows no method: every method's params and result are `unknown`. */
export type NoMethods = Record<never, never>;

/**
 * A map of notification method → its params type (no wrapper: notifications have no result), the
 * shape of `ClientNotificationMap` and `ServerNotificationMap` in `onemodelcontext/protocol`.
 */
export type NotificationMap = object;

/** The params type of notification `Method` in `Map`; `unknown` for a method the map does not know. */
export type NotificationParamsOf<Map, Method extends string> = Method extends keyof Map ? Map[Method]
  : unknown;

/** The params type of request `Method` in `Map`; `unknown` for a method the map does not know. */
export type ParamsOf<Map, Method extends string> = Method extends keyof Map
  ? Map[Method] extends { params: infer P } ? P
  : Map[Method] extends { params?: infer P } ? P | undefined
  : unknown
  : unknown;

/** The result type of `Method` in `Map`; `unknown` for a method the map does not know. */
export type ResultOf<Map, Method extends string> = Method extends keyof Map
  ? Map[Method] extends { result: infer R } ? R : unknown
  : unknown;

/** The methods `Map` names. */
export type KnownMethod<Map> = keyof Map & string;

/** `Method` when `Map` does not name it, else `never`: methods outside a map stay allowed, as `unknown`. */
export type OtherMethod<Map, Method extends string> = Method extends keyof Map ? never : Method;

/**
 * Any method name while `Map` names no method (the caller then asserts params or result types
 * itself); `never` once it names some, so that a map's types cannot be bypassed by an explicit
 * type argument.
 */
export type UntypedMethod<Map> = [keyof Map] extends [never] ? string : never;
