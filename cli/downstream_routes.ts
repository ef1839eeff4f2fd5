/**
 * `DownstreamRoutes`: what ties a child's notifications to the HTTP request that caused them, when
 * many HTTP clients share one child. Each forwarded request gets a progress token and, for
 * `subscriptions/listen`, a request id of the gateway's own, unique on the child's connection; the
 * child's `notifications/progress` and listen-stream notifications are sent back to that request
 * only, with the client's own token and subscription id restored. Two clients that chose the same
 * token (or id) never read each other's notifications.
 * @module
 */
import type { DispatchContext } from "onemodelcontext";

const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

/** The notifications a child sends on a `subscriptions/listen` stream. */
export const LISTEN_NOTIFICATIONS = [
  "notifications/subscriptions/acknowledged",
  "notifications/tools/list_changed",
  "notifications/prompts/list_changed",
  "notifications/resources/list_changed",
  "notifications/resources/updated",
] as const;

interface Route {
  readonly context: DispatchContext;
  /** The downstream client's own value (its progress token, or its listen request's id). */
  readonly original: unknown;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A forwarded request's params and id, rewritten, and how to undo the rewrite. */
export interface RoutedRequest {
  /** The params to send the child (the same object when nothing was rewritten). */
  params: unknown;
  /** The request id to use on the child's connection (`subscriptions/listen` only). */
  id: string | undefined;
  /** Passes a child's related notification (progress) back to the downstream request, restored. */
  onNotification(method: string, params: unknown): void;
  /** Forgets the routes; call once the request settled. */
  done(): void;
}

/** The routes of one child connection's requests in flight. */
export class DownstreamRoutes {
  #next = 0;
  readonly #progress = new Map<string, Route>();
  readonly #listens = new Map<string, Route>();

  /** Rewrites a downstream request's progress token (and a listen request's id) into gateway-unique ones. */
  route(method: string, id: unknown, params: unknown, context: DispatchContext): RoutedRequest {
    const meta = isObject(params) && isObject(params._meta) ? params._meta : undefined;
    const token = meta?.progressToken;
    let sent = params;
    let progressKey: string | undefined;
    if (typeof token === "string" || typeof token === "number") {
      progressKey = `gateway-progress-${++this.#next}`;
      this.#progress.set(progressKey, { context, original: token });
      sent = { ...(params as Record<string, unknown>), _meta: { ...meta, progressToken: progressKey } };
    }
    let listenId: string | undefined;
    if (method === "subscriptions/listen") {
      listenId = `gateway-listen-${++this.#next}`;
      this.#listens.set(listenId, { context, original: id });
    }
    return {
      params: sent,
      id: listenId,
      onNotification: (m, p) => {
        if (m === "notifications/progress") this.#sendProgress(p);
      },
      done: () => {
        if (progressKey !== undefined) this.#progress.delete(progressKey);
        if (listenId !== undefined) this.#listens.delete(listenId);
      },
    };
  }

  /** Sends a child's `notifications/progress` to the request whose token it carries; false when none. */
  sendProgress(params: unknown): boolean {
    return this.#sendProgress(params);
  }

  #sendProgress(params: unknown): boolean {
    const token = isObject(params) ? params.progressToken : undefined;
    const route = typeof token === "string" ? this.#progress.get(token) : undefined;
    if (!route) return false;
    void route.context.notify("notifications/progress", {
      ...(params as object),
      progressToken: route.original,
    })
      .catch(() => {});
    return true;
  }

  /**
   * Sends a child's listen-stream notification to the downstream listen request it names (its
   * subscription id), with the downstream request's id as subscription id; false when none.
   */
  sendListen(method: string, params: unknown): boolean {
    const meta = isObject(params) && isObject(params._meta) ? params._meta : undefined;
    const key = meta?.[SUBSCRIPTION_ID];
    const route = typeof key === "string" ? this.#listens.get(key) : undefined;
    if (!route) return false;
    const restored = { ...(params as object), _meta: { ...meta, [SUBSCRIPTION_ID]: route.original } };
    void route.context.notify(method, restored).catch(() => {});
    return true;
  }

  /** The listen result's subscription id, restored to the downstream request's id. */
  restoreResult(routed: RoutedRequest, result: unknown): unknown {
    if (routed.id === undefined || !isObject(result) || !isObject(result._meta)) return result;
    const route = this.#listens.get(routed.id);
    if (!route || result._meta[SUBSCRIPTION_ID] !== routed.id) return result;
    return { ...result, _meta: { ...result._meta, [SUBSCRIPTION_ID]: route.original } };
  }
}
