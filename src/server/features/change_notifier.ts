/**
 * `ChangeNotifier`: tells clients that a list changed or a resource was updated, in both eras. Legacy
 * sessions get `notifications/*_changed` once initialized and `notifications/resources/updated` for the
 * URIs they subscribed to with `resources/subscribe`; modern clients get the same through their
 * `subscriptions/listen` streams ({@linkcode ListenStreams}).
 * @module
 */
import { ErrorCodes, JsonRpcError } from "../../wire/errors.ts";
import { isPlainObject } from "../../wire/meta_envelope.ts";
import type { FeatureHost, FeatureRequestContext, FeatureSession, ReachableSession } from "./feature_host.ts";
import type { ListenStreams, ListKind } from "./listen/listen_streams.ts";

/** How many URIs one legacy session may subscribe to. */
const MAX_SESSION_SUBSCRIPTIONS = 1000;

/** Change notifications and legacy resource subscriptions. */
export class ChangeNotifier {
  readonly #host: FeatureHost;
  readonly #streams: ListenStreams;
  readonly #subscriptions = new WeakMap<FeatureSession, Set<string>>();
  readonly #pending = new Set<ListKind>();
  #flushQueued = false;

  constructor(host: FeatureHost, streams: ListenStreams) {
    this.#host = host;
    this.#streams = streams;
  }

  /**
   * Announces that list `kind` changed. Changes made in one synchronous run (several registrations in
   * a row) are sent once, in a microtask.
   */
  listChanged(kind: ListKind): void {
    this.#pending.add(kind);
    if (this.#flushQueued) return;
    this.#flushQueued = true;
    queueMicrotask(() => this.#flush());
  }

  /** Sends `notifications/resources/updated` for `uri` to every initialized legacy session and listen stream subscribed to it. */
  resourceUpdated(uri: string): void {
    for (const session of this.#host.sessions()) {
      if (this.#urisOf(session, false)?.has(uri)) {
        this.#send(session, "notifications/resources/updated", { uri });
      }
    }
    this.#streams.resourceUpdated(uri);
  }

  /** The URIs a legacy session subscribed to. */
  subscriptionsOf(session: FeatureSession): ReadonlySet<string> {
    return this.#urisOf(session, false) ?? new Set();
  }

  /**
   * The URIs `session` subscribed to. A legacy session keeps a copy in `legacy.subscriptions`, so a
   * session store can carry it to another replica, where it is read back on first use.
   */
  #urisOf(session: FeatureSession, create: boolean): Set<string> | undefined {
    let uris = this.#subscriptions.get(session);
    if (!uris) {
      const stored = legacyOf(session)?.subscriptions;
      if (!stored && !create) return undefined;
      uris = new Set(stored ?? []);
      this.#subscriptions.set(session, uris);
    }
    return uris;
  }

  /** `resources/subscribe` (legacy only; replaced by `subscriptions/listen` in 2026-07-28). */
  subscribe(params: unknown, context: FeatureRequestContext): Record<string, never> {
    const { session, uri } = legacyUri("resources/subscribe", params, context);
    const uris = this.#urisOf(session, true)!;
    if (!uris.has(uri) && uris.size >= MAX_SESSION_SUBSCRIPTIONS) {
      throw new JsonRpcError(
        ErrorCodes.InvalidParams,
        `Invalid params: this session already subscribed to ${MAX_SESSION_SUBSCRIPTIONS} resources, the limit`,
      );
    }
    uris.add(uri);
    mirror(session, uris);
    return {};
  }

  /** `resources/unsubscribe` (legacy only). Unsubscribing from a URI never subscribed is not an error. */
  unsubscribe(params: unknown, context: FeatureRequestContext): Record<string, never> {
    const { session, uri } = legacyUri("resources/unsubscribe", params, context);
    const uris = this.#urisOf(session, false);
    if (uris?.delete(uri)) mirror(session, uris);
    return {};
  }

  #flush(): void {
    this.#flushQueued = false;
    const kinds = [...this.#pending];
    this.#pending.clear();
    for (const kind of kinds) {
      for (const session of this.#host.sessions()) {
        this.#send(session, `notifications/${kind}/list_changed`, undefined);
      }
      this.#streams.listChanged(kind);
    }
  }

  #send(session: ReachableSession, method: string, params: unknown): void {
    session.notify(method, params).catch((error: unknown) =>
      this.#host.report(error instanceof Error ? error : new Error(String(error)))
    );
  }
}

function legacyUri(
  method: string,
  params: unknown,
  context: FeatureRequestContext,
): { session: FeatureSession; uri: string } {
  if (context.era === "modern") {
    throw new JsonRpcError(
      ErrorCodes.MethodNotFound,
      `Method not found: ${method} (removed in 2026-07-28: use subscriptions/listen with resourceSubscriptions)`,
    );
  }
  if (context.session === undefined) {
    throw new JsonRpcError(
      ErrorCodes.InvalidRequest,
      `Invalid request: ${method} needs a session to remember the subscription in, and this transport keeps none`,
    );
  }
  const uri = isPlainObject(params) ? params.uri : undefined;
  if (typeof uri !== "string" || uri.length === 0) {
    throw new JsonRpcError(
      ErrorCodes.InvalidParams,
      `Invalid params: uri must be a non-empty string, got ${JSON.stringify(uri) ?? "nothing"}`,
    );
  }
  return { session: context.session, uri };
}

/** The `legacy` record of a session that has one (an HTTP or stream session). */
function legacyOf(session: FeatureSession): { subscriptions?: string[] } | undefined {
  const legacy = (session as { legacy?: unknown }).legacy;
  return typeof legacy === "object" && legacy !== null ? legacy as { subscriptions?: string[] } : undefined;
}

/** Copies `uris` into the session's `legacy.subscriptions`, where a session store finds them. */
function mirror(session: FeatureSession, uris: ReadonlySet<string>): void {
  const legacy = legacyOf(session);
  if (legacy) legacy.subscriptions = [...uris];
}
