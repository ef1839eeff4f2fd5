/**
 * `ListenStreams`: the modern era's `subscriptions/listen` streams. Each stream is one pending request:
 * it is acknowledged first (with the honoured subset of its filter), then carries only the requested
 * notification types, each stamped with the listen request's id, until the client cancels it or the
 * server closes (then it ends with a result, the graceful end).
 * @module
 */
import { ErrorCodes, JsonRpcError } from "../../../wire/errors.ts";
import { isPlainObject } from "../../../wire/meta_envelope.ts";
import { MetaKeys } from "../../../wire/protocol_versions.ts";
import type { RequestId } from "../../../wire/json_rpc_message.ts";
import type { FeatureRequestContext } from "../feature_host.ts";
import { notifierOf, type Notify } from "../../detached_notify.ts";
import { whenCancelled } from "../../when_cancelled.ts";
import { detailedTaskOf, type TaskRecord, TASKS_EXTENSION } from "../../../tasks/task_record.ts";
import { missingTasksCapabilityError } from "../../../tasks/task_errors.ts";

/** The notification types of a listen stream (the 2026-07-28 `SubscriptionFilter`). */
export interface ListenFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
  /** `notifications/tasks` for these task ids (the tasks extension). */
  taskIds?: string[];
}

/** A list whose changes a listen stream can ask for. */
export type ListKind = "tools" | "prompts" | "resources";

const FILTER_KEY: Record<ListKind, "toolsListChanged" | "promptsListChanged" | "resourcesListChanged"> = {
  tools: "toolsListChanged",
  prompts: "promptsListChanged",
  resources: "resourcesListChanged",
};

/** The URIs or task ids of a stream that asked for none: one empty set for all (an empty `Set` is about 200 bytes). */
const NONE: ReadonlySet<string> = new Set();

/** `values` as a set; the shared empty one when there are none. */
function setOf(values: readonly string[] | undefined): ReadonlySet<string> {
  return values === undefined || values.length === 0 ? NONE : new Set(values);
}

/** How many URIs one stream may subscribe to. */
const MAX_RESOURCE_SUBSCRIPTIONS = 1000;

/**
 * What an open stream keeps, and no more: its id, filter, URIs and a way to notify. Never the request
 * or its context (they hold the request's params and envelope, megabytes if the client sent them).
 */
interface Stream {
  readonly id: RequestId;
  readonly filter: ListenFilter;
  readonly uris: ReadonlySet<string>;
  readonly notify: Notify;
  readonly taskIds: ReadonlySet<string>;
}

/**
 * Holds `stream` in `streams` until `cancel()` (its request was cancelled); `ended` then resolves
 * with the graceful result, not before the acknowledgement was queued. A module function, not a
 * method taking the request's context: its closures keep the stream and nothing of the request.
 * Not an async function, and no `AbortSignal`: an idle stream holds one pending promise and one callback.
 */
function hold(
  streams: Set<Stream>,
  stream: Stream,
  acknowledged: Promise<void>,
): { ended: Promise<Record<string, unknown>>; cancel: () => void } {
  let cancelled = false;
  let queued = false;
  let resolve!: (result: Record<string, unknown>) => void;
  let reject!: (error: unknown) => void;
  const ended = new Promise<Record<string, unknown>>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  acknowledged.then(() => {
    queued = true;
    if (cancelled) end();
  }, (error: unknown) => {
    streams.delete(stream);
    reject(error);
  });
  const end = (): void => {
    streams.delete(stream);
    resolve({ _meta: { [MetaKeys.subscriptionId]: stream.id } });
  };
  streams.add(stream);
  const cancel = (): void => {
    cancelled = true;
    if (queued) end();
    else streams.delete(stream); // cancelled before its acknowledgement was queued: it ends once it is
  };
  return { ended, cancel };
}

/** The open listen streams of a server, across all its connections. */
export class ListenStreams {
  readonly #streams = new Set<Stream>();
  readonly #honours: (kind: ListKind | "resourceSubscriptions" | "tasks") => boolean;
  readonly #report: (error: Error) => void;

  /** `honours` says which types this server can deliver (from what is registered). */
  constructor(
    honours: (kind: ListKind | "resourceSubscriptions" | "tasks") => boolean,
    report: (error: Error) => void,
  ) {
    this.#honours = honours;
    this.#report = report;
  }

  /** Open streams now. */
  get size(): number {
    return this.#streams.size;
  }

  /**
   * The `subscriptions/listen` handler: resolves (the graceful end) when the stream's signal aborts.
   * Not an async function: the request is read here, and only what the stream needs goes on.
   */
  listen(params: unknown, context: FeatureRequestContext): Promise<Record<string, unknown>> {
    if (context.era !== "modern") {
      throw new JsonRpcError(
        ErrorCodes.MethodNotFound,
        "Method not found: subscriptions/listen is a 2026-07-28 request (legacy sessions use resources/subscribe and list_changed notifications)",
      );
    }
    const requested = isPlainObject(params) ? params.notifications : undefined;
    if (!isPlainObject(requested)) {
      throw new JsonRpcError(
        ErrorCodes.InvalidParams,
        "Invalid params: notifications must be an object (the subscription filter)",
      );
    }
    const filter: ListenFilter = {};
    for (const kind of ["tools", "prompts", "resources"] as const) {
      const key = FILTER_KEY[kind];
      const wanted = requested[key];
      if (wanted !== undefined && typeof wanted !== "boolean") {
        throw new JsonRpcError(
          ErrorCodes.InvalidParams,
          `Invalid params: notifications.${key} must be a boolean`,
        );
      }
      if (wanted === true && this.#honours(kind)) filter[key] = true;
    }
    const uris = requested.resourceSubscriptions;
    if (uris !== undefined) {
      if (!Array.isArray(uris) || !uris.every((uri) => typeof uri === "string")) {
        throw new JsonRpcError(
          ErrorCodes.InvalidParams,
          "Invalid params: notifications.resourceSubscriptions must be an array of URI strings",
        );
      }
      if (uris.length > MAX_RESOURCE_SUBSCRIPTIONS) {
        throw new JsonRpcError(
          ErrorCodes.InvalidParams,
          `Invalid params: notifications.resourceSubscriptions holds ${uris.length} URIs, more than ${MAX_RESOURCE_SUBSCRIPTIONS}`,
        );
      }
      if (this.#honours("resourceSubscriptions")) {
        filter.resourceSubscriptions = [...new Set(uris as string[])];
      }
    }
    const taskIds = requested.taskIds;
    if (taskIds !== undefined) {
      if (!Array.isArray(taskIds) || !taskIds.every((taskId) => typeof taskId === "string")) {
        throw new JsonRpcError(
          ErrorCodes.InvalidParams,
          "Invalid params: notifications.taskIds must be an array of task id strings",
        );
      }
      if (taskIds.length > MAX_RESOURCE_SUBSCRIPTIONS) {
        throw new JsonRpcError(
          ErrorCodes.InvalidParams,
          `Invalid params: notifications.taskIds holds ${taskIds.length} ids, more than ${MAX_RESOURCE_SUBSCRIPTIONS}`,
        );
      }
      const extensions = context.clientCapabilities.extensions;
      if (!isPlainObject(extensions) || !isPlainObject(extensions[TASKS_EXTENSION])) {
        throw missingTasksCapabilityError("notifications.taskIds of subscriptions/listen");
      }
      if (this.#honours("tasks")) filter.taskIds = [...new Set(taskIds as string[])];
    }
    const id = context.requestId;
    const notify = notifierOf(context);
    const stream: Stream = {
      id,
      filter,
      uris: setOf(filter.resourceSubscriptions),
      taskIds: setOf(filter.taskIds),
      notify,
    };
    // Queued before the stream is registered, so it precedes every notification of this subscription.
    const acknowledged = notify("notifications/subscriptions/acknowledged", {
      _meta: { [MetaKeys.subscriptionId]: id },
      notifications: filter,
    });
    const held = hold(this.#streams, stream, acknowledged);
    whenCancelled(context, held.cancel);
    return held.ended;
  }

  /** Sends `notifications/<kind>/list_changed` on every stream that asked for it. */
  listChanged(kind: ListKind): void {
    const key = FILTER_KEY[kind];
    for (const stream of this.#streams) {
      if (stream.filter[key] === true) this.#send(stream, `notifications/${kind}/list_changed`, {});
    }
  }

  /** Sends `notifications/resources/updated` on every stream subscribed to `uri`. */
  resourceUpdated(uri: string): void {
    for (const stream of this.#streams) {
      if (stream.uris.has(uri)) this.#send(stream, "notifications/resources/updated", { uri });
    }
  }

  /** True when an open stream asked for `notifications/tasks` of `taskId`. */
  wantsTask(taskId: string): boolean {
    for (const stream of this.#streams) if (stream.taskIds.has(taskId)) return true;
    return false;
  }

  /** Sends `notifications/tasks` (the task as `tasks/get` shows it) on every stream that asked for its id. */
  taskChanged(record: TaskRecord): void {
    let params: Record<string, unknown> | undefined;
    for (const stream of this.#streams) {
      if (!stream.taskIds.has(record.taskId)) continue;
      params ??= detailedTaskOf(record) as unknown as Record<string, unknown>;
      this.#send(stream, "notifications/tasks", params);
    }
  }

  #send(stream: Stream, method: string, params: Record<string, unknown>): void {
    const stamped = { ...params, _meta: { [MetaKeys.subscriptionId]: stream.id } };
    stream.notify(method, stamped).catch((error: unknown) =>
      this.#report(error instanceof Error ? error : new Error(String(error)))
    );
  }
}
