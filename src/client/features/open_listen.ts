/**
 * `openListen`: change events of both eras on one {@linkcode ChangeStream}. Modern: one
 * `subscriptions/listen` request, demultiplexed by its subscription id; over HTTP, reopened (a new id,
 * bounded backoff with jitter) when it breaks off or the server ends it, then a `resync` event. Legacy: the
 * `notifications/*\/list_changed` and `notifications/resources/updated` notifications, with
 * `resources/subscribe` for the URIs.
 * @module
 */
import { asError, CancelledError } from "../../wire/errors.ts";
import { isPlainObject } from "../../wire/meta_envelope.ts";
import { MetaKeys } from "../../wire/protocol_versions.ts";
import { delay } from "../../stream/time_kit.ts";
import { ChangeStream } from "./change_stream.ts";
import { ClientFeatureError } from "./feature_errors.ts";
import type { FeatureHost } from "./feature_host.ts";
import type { ChangeEvent, ChangeFilter } from "./feature_types.ts";
import { isReopenable, listenReconnectDelay, type ListenReconnectPolicy } from "./listen_reconnect.ts";
import type { NotificationFanout } from "./notification_fanout.ts";
import type { ResourceSubscriptions } from "./resource_subscriptions.ts";

/** What {@linkcode openListen} should report. */
export interface ListenOptions {
  /**
   * `notifications/tools/list_changed`. Default false.
   * @default false
   */
  tools?: boolean;
  /**
   * `notifications/prompts/list_changed`. Default false.
   * @default false
   */
  prompts?: boolean;
  /**
   * `notifications/resources/list_changed`. Default false.
   * @default false
   */
  resources?: boolean;
  /**
   * `notifications/resources/updated` for these URIs (legacy: after `resources/subscribe`). Default none.
   * @default none
   */
  resourceUris?: readonly string[];
  /** Aborting ends the stream like `close()`. */
  signal?: AbortSignal;
}

/** What {@linkcode openListen} works with. */
export interface ListenContext {
  readonly host: FeatureHost;
  readonly fanout: NotificationFanout;
  /** Where the notifications on a listen stream's own response go (see `FeatureRequestContext.related`). */
  readonly related: (method: string, params: unknown) => unknown;
  readonly subscriptions: ResourceSubscriptions;
  /** A fresh JSON-RPC id for a `subscriptions/listen` request. */
  readonly nextListenId: () => string;
  /** Calls `onClosed` once when the connection ends; returns the function that forgets it. */
  readonly watchClose: (onClosed: () => void) => () => void;
  /** Calls `onResync` whenever the legacy session lost messages (see `ClientFeatures.resync`); returns the function that forgets it. */
  readonly watchResync: (onResync: () => void) => () => void;
  /** Drops the cached listings (a stream broke off: list-changed notifications may have been missed). */
  readonly invalidateLists: () => void;
  /** How a broken modern listen stream reopens; `undefined`: it ends instead (stream transports, or turned off). */
  readonly reconnect?: ListenReconnectPolicy;
}

const LIST_METHODS = {
  toolsListChanged: "notifications/tools/list_changed",
  promptsListChanged: "notifications/prompts/list_changed",
  resourcesListChanged: "notifications/resources/list_changed",
} as const;
const UPDATED = "notifications/resources/updated";

type ListType = keyof typeof LIST_METHODS;

/** Opens a listen stream in the host's era. Never throws: failures end the stream with the error. */
export function openListen(context: ListenContext, options: ListenOptions): ChangeStream {
  const filter: ChangeFilter = {};
  if (options.tools) filter.toolsListChanged = true;
  if (options.prompts) filter.promptsListChanged = true;
  if (options.resources) filter.resourcesListChanged = true;
  const uris = [...new Set(options.resourceUris ?? [])];
  if (uris.length > 0) filter.resourceSubscriptions = uris;
  const stream = context.host.era() === "modern" ? openModern(context, filter) : openLegacy(context, filter);
  const signal = options.signal;
  if (signal) {
    // Nobody awaits a close started by the signal: a failed unsubscribe (the client closing meanwhile)
    // is reported, never left as an unhandled rejection that ends the process.
    const closeQuietly = (): void => void stream.close().catch((error) => context.host.report(error));
    if (signal.aborted) closeQuietly();
    else {
      const onAbort = closeQuietly;
      signal.addEventListener("abort", onAbort, { once: true });
      void stream.ended.then(() => signal.removeEventListener("abort", onAbort));
    }
  }
  return stream;
}

/** Forwards the notifications of the list types and URIs in `filter` that pass `accept` to `stream`. */
function forward(
  context: ListenContext,
  stream: ChangeStream,
  filter: ChangeFilter,
  accept: (method: string, params: unknown) => boolean,
): Array<() => void> {
  const offs: Array<() => void> = [];
  for (const type of Object.keys(LIST_METHODS) as ListType[]) {
    if (!filter[type]) continue;
    const method = LIST_METHODS[type];
    offs.push(context.fanout.on(method, (params) => {
      if (accept(method, params)) stream.push({ type } as ChangeEvent);
    }));
  }
  const uris = new Set(filter.resourceSubscriptions ?? []);
  if (uris.size > 0) {
    offs.push(context.fanout.on(UPDATED, (params) => {
      if (!accept(UPDATED, params)) return;
      const uri = isPlainObject(params) ? params.uri : undefined;
      if (typeof uri === "string" && uris.has(uri)) stream.push({ type: "resourceUpdated", uri });
    }));
  }
  return offs;
}

function subscriptionIdOf(params: unknown): unknown {
  return isPlainObject(params) && isPlainObject(params._meta)
    ? params._meta[MetaKeys.subscriptionId]
    : undefined;
}

function openModern(context: ListenContext, filter: ChangeFilter): ChangeStream {
  const { host, fanout, reconnect } = context;
  const closer = new AbortController(); // aborts when the consumer closes the stream
  let id = context.nextListenId();
  let attempt = new AbortController();
  let over = false;
  let acknowledged = false; // the current attempt was acknowledged
  let everAcknowledged = false;
  let gap = false; // an acknowledged stream broke: events may have been missed until the next acknowledgement
  let acknowledgedAt = 0;
  let attempts = 0; // reopenings since the last stream that stayed acknowledged for maxDelay
  const offs: Array<() => void> = [];
  const finish = (error?: unknown, serverReason?: string): void => {
    over = true;
    for (const off of offs.splice(0)) off();
    stream.end(error, serverReason);
  };
  const stream = new ChangeStream(() => {
    over = true;
    for (const off of offs.splice(0)) off();
    closer.abort(new CancelledError(`Listen stream ${id} closed by the client`));
  });
  const ours = (params: unknown): boolean => subscriptionIdOf(params) === id;
  offs.push(fanout.on("notifications/subscriptions/acknowledged", (params) => {
    if (!ours(params) || over) return;
    acknowledged = true;
    acknowledgedAt = host.time.now();
    if (!everAcknowledged) {
      everAcknowledged = true;
      const granted = isPlainObject(params) && isPlainObject(params.notifications)
        ? params.notifications
        : {};
      stream.acknowledge(granted as ChangeFilter);
    } else if (gap) {
      gap = false;
      context.invalidateLists();
      stream.push({ type: "resync" });
    }
  }));
  offs.push(fanout.on("notifications/cancelled", (params) => {
    if (!isPlainObject(params) || params.requestId !== id || over) return;
    finish(
      undefined,
      typeof params.reason === "string" ? `cancelled: ${params.reason.slice(0, 200)}` : "cancelled",
    );
    attempt.abort(new CancelledError(`Listen stream ${id} ended by the server`));
  }));
  offs.push(...forward(context, stream, filter, (_method, params) => ours(params)));
  let connectionClosed = false;
  let waiting: AbortController | undefined; // the wait before the next attempt
  const unwatch = reconnect
    ? context.watchClose(() => {
      connectionClosed = true;
      waiting?.abort();
    })
    : () => {};
  void stream.ended.then(unwatch);

  void (async () => {
    for (;;) {
      attempt = new AbortController();
      const current = attempt;
      const onClose = (): void => current.abort(closer.signal.reason);
      closer.signal.addEventListener("abort", onClose, { once: true });
      acknowledged = false;
      let failure: { error: unknown } | undefined;
      try {
        await host.request("subscriptions/listen", { notifications: filter }, {
          signal: current.signal,
          id,
          onNotification: context.related,
        });
      } catch (error) {
        failure = { error };
      } finally {
        closer.signal.removeEventListener("abort", onClose);
      }
      if (over || current.signal.aborted) return finish();
      if (!reconnect || connectionClosed || (failure && !isReopenable(failure.error))) {
        return failure ? finish(failure.error) : finish(undefined, "result");
      }
      if (acknowledged) {
        gap = true;
        context.invalidateLists();
      }
      // Only a stream that lived as long as the longest wait proves the server healthy: one that is
      // acknowledged and ended at once, again and again, still runs into maxAttempts.
      if (acknowledged && host.time.now() - acknowledgedAt >= reconnect.maxDelay) attempts = 0;
      attempts++;
      const why = failure
        ? `broke off (${asError(failure.error).message})`
        : "was ended by the server (its graceful result)";
      if (attempts > reconnect.maxAttempts) {
        const cause = failure?.error;
        return finish(
          new ClientFeatureError(
            "listen_ended",
            `Listen stream ${id} ${why}; gave up after ${reconnect.maxAttempts} reopenings in a row (none stayed open ${reconnect.maxDelay} ms)`,
            { cause },
          ),
        );
      }
      const wait = listenReconnectDelay(reconnect, attempts);
      host.report(
        new ClientFeatureError(
          "listen_ended",
          `Listen stream ${id} ${why}; reopening it in ${
            Math.round(wait)
          } ms (attempt ${attempts} of ${reconnect.maxAttempts})`,
          { cause: failure?.error },
        ),
      );
      const waited = (waiting = new AbortController());
      const cutWait = (): void => waited.abort();
      closer.signal.addEventListener("abort", cutWait, { once: true });
      try {
        await delay(host.time, wait, waited.signal);
      } catch {
        // Cut short by close() (the stream has ended) or by the connection's end (below).
      } finally {
        closer.signal.removeEventListener("abort", cutWait);
        waiting = undefined;
      }
      if (over) return;
      if (connectionClosed) {
        return finish(
          new ClientFeatureError("listen_ended", "The connection closed, so the listen stream ended"),
        );
      }
      id = context.nextListenId();
    }
  })();
  return stream;
}

function openLegacy(context: ListenContext, filter: ChangeFilter): ChangeStream {
  const { host, subscriptions } = context;
  const held: string[] = [];
  let closed = false;
  const stream: ChangeStream = new ChangeStream(async () => {
    closed = true;
    for (const off of live.splice(0)) off();
    const errors: unknown[] = [];
    for (const uri of held.splice(0)) await subscriptions.release(uri).catch((error) => errors.push(error));
    if (errors.length > 0) throw errors[0];
  });
  const live = forward(context, stream, filter, () => true);
  live.push(context.watchResync(() => stream.push({ type: "resync" })));
  const unwatch = context.watchClose(() => {
    for (const off of live.splice(0)) off();
    held.length = 0;
    stream.end(new ClientFeatureError("listen_ended", "The connection closed, so the listen stream ended"));
  });
  void stream.ended.then(unwatch);
  void (async () => {
    const capabilities = host.serverCapabilities();
    const granted: ChangeFilter = {};
    for (const type of Object.keys(LIST_METHODS) as ListType[]) {
      const area = type === "toolsListChanged"
        ? "tools"
        : type === "promptsListChanged"
        ? "prompts"
        : "resources";
      const declared = capabilities[area];
      if (filter[type] && isPlainObject(declared) && declared.listChanged === true) granted[type] = true;
    }
    const uris = filter.resourceSubscriptions ?? [];
    const resources = capabilities.resources;
    if (uris.length > 0 && isPlainObject(resources) && resources.subscribe === true) {
      try {
        for (const uri of uris) {
          if (closed) return;
          await subscriptions.acquire(uri);
          if (closed) {
            await subscriptions.release(uri);
            return;
          }
          held.push(uri);
        }
      } catch (error) {
        for (const off of live.splice(0)) off();
        for (const uri of held.splice(0)) await subscriptions.release(uri).catch((e) => host.report(e));
        stream.end(error);
        return;
      }
      granted.resourceSubscriptions = [...held];
    }
    stream.acknowledge(granted);
  })();
  return stream;
}
