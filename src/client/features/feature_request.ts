/**
 * `sendFeatureRequest`: one request of the feature API, with a timeout that progress resets (up to a
 * ceiling), progress routed to `onProgress`, and the modern `input_required` rounds (the client's one
 * loop, `runInputRounds`).
 * @module
 */
import { TimeoutError } from "../../wire/errors.ts";
import { isPlainObject, type LoggingLevel } from "../../wire/meta_envelope.ts";
import type { TimerHandle } from "../../stream/time_provider.ts";
import { ClientFeatureError, InputRequiredError } from "./feature_errors.ts";
import type { FeatureHost } from "./feature_host.ts";
import type { ProgressUpdate } from "./feature_types.ts";
import type { ProgressRouter } from "./progress_router.ts";
import { runInputRounds } from "../input_rounds.ts";
import { type ClientTask, followTask, readTask } from "./task_follower.ts";

/** The methods whose modern results may be `input_required`. */
const INPUT_METHODS = new Set(["tools/call", "prompts/get", "resources/read"]);

/** Options of one feature request (`callTool`, `readResource`, `listTools`…). */
export interface FeatureRequestOptions {
  /** Aborting cancels the request on the wire and rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Milliseconds to wait for the reply; each progress notification starts the wait again (when
   * `onProgress` is given). On expiry the request is cancelled and rejects with a `TimeoutError`.
   * Default: the client's `requestTimeout` (60 000 ms). `Infinity` waits for ever.
   * @default the client's `requestTimeout`
   */
  timeout?: number;
  /**
   * The ceiling progress cannot push the wait past, from the start of the call. Default: the client's `maxRequestTimeout` (600 000 ms).
   * @default the client's `maxRequestTimeout`
   */
  maxTimeout?: number;
  /** Called with every `notifications/progress` of this request; giving it sends a progress token. */
  onProgress?: (update: ProgressUpdate) => void;
  /**
   * `tools/call` answered with a task (the server and this request's client capabilities both declare
   * `io.modelcontextprotocol/tasks`): called with the task after each `tasks/get` poll, its
   * `statusMessage` being the progress. The call follows the task to its result either way.
   */
  onTaskStatus?: (task: ClientTask) => void;
  /** Modern era: the log level of this request only (`_meta["io.modelcontextprotocol/logLevel"]`), instead of the one from `setLogLevel`. Ignored in the legacy era. */
  logLevel?: LoggingLevel;
}

/** Defaults and bounds of {@linkcode sendFeatureRequest}. */
export interface FeatureRequestContext {
  readonly host: FeatureHost;
  readonly progress: ProgressRouter;
  readonly requestTimeout: number;
  readonly maxRequestTimeout: number;
  /** `input_required` rounds answered at most before the result goes to the caller as an error. */
  readonly maxInputRounds: number;
  /** Where notifications tied to a request go (the feature API's fan-out: progress, logs, listen events). */
  readonly related: (method: string, params: unknown) => unknown;
  /** Extra `_meta` keys for a request (the modern per-request log level; `logLevel` overrides the client's). */
  readonly meta: (logLevel: LoggingLevel | undefined) => Record<string, unknown> | undefined;
}

/**
 * Sends `method` and resolves with its complete result. Rejects with the server's `JsonRpcError`, a
 * `TimeoutError`, the signal's reason, an {@linkcode InputRequiredError}, or a `ClientFeatureError`
 * `invalid_result` for a `resultType` this library does not know.
 */
export async function sendFeatureRequest(
  context: FeatureRequestContext,
  method: string,
  params: Record<string, unknown>,
  options: FeatureRequestOptions = {},
): Promise<unknown> {
  const { host } = context;
  const timeout = options.timeout ?? context.requestTimeout;
  const maxTimeout = Math.max(timeout, options.maxTimeout ?? context.maxRequestTimeout);
  const user = options.signal;
  if (user?.aborted) throw user.reason;
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(user!.reason);
  user?.addEventListener("abort", onAbort, { once: true });
  const started = host.time.now();
  let timer: TimerHandle | undefined;
  const arm = (ms: number, total: boolean): void => {
    timer?.cancel();
    if (!Number.isFinite(ms)) return;
    timer = host.time.setTimer(() => {
      const message = total
        ? `Request ${
          JSON.stringify(method)
        } ran past maxTimeout (${maxTimeout} ms) despite progress: cancelled`
        : `Request ${JSON.stringify(method)} got no reply within ${timeout} ms: cancelled`;
      controller.abort(new TimeoutError(message, total ? maxTimeout : timeout));
    }, ms);
  };
  const reArm = (): void => {
    const left = started + maxTimeout - host.time.now();
    if (left < timeout) arm(Math.max(0, left), true);
    else arm(timeout, false);
  };
  reArm();
  const route = options.onProgress
    ? context.progress.register((update) => {
      if (controller.signal.aborted) return;
      reArm();
      options.onProgress!(update);
    })
    : undefined;
  try {
    const extra = context.meta(options.logLevel);
    const meta = {
      ...(isPlainObject(params._meta) ? params._meta : {}),
      ...extra,
      ...(route ? { progressToken: route.token } : {}),
    };
    const base = Object.keys(meta).length > 0 ? { ...params, _meta: meta } : params;
    const send = (m: string, p: Record<string, unknown>, o: { signal?: AbortSignal }) =>
      host.request(m, p, { signal: o.signal, onNotification: context.related });
    const result = INPUT_METHODS.has(method)
      ? await runInputRounds(send, method, base, {
        maxRounds: context.maxInputRounds,
        answer: (m, p, c) => host.answerInputRequest?.(m, p, c),
        stateOnlyRetryDelay: host.stateOnlyRetryDelay ?? 0,
        time: host.time,
        signal: controller.signal,
        fail: (failure) =>
          failure.reason === "malformed"
            ? new ClientFeatureError("invalid_result", failure.message)
            : new InputRequiredError(
              method,
              failure.result,
              failure.request
                ? `no handler for input request ${JSON.stringify(failure.request.key)} (${
                  JSON.stringify(failure.request.method)
                })`
                : `still asking after ${context.maxInputRounds} rounds (maxInputRounds)`,
            ),
      })
      : await send(method, base, { signal: controller.signal });
    const kind = isPlainObject(result) ? result.resultType : undefined;
    if (kind === undefined || kind === "complete") return result;
    if (
      kind === "task" && method === "tools/call" &&
      typeof (result as { taskId?: unknown }).taskId === "string"
    ) {
      // The reply came: from now on the task has its own life, bounded by its TTL and the signal.
      timer?.cancel();
      timer = undefined;
      const created = readTask(result, method);
      return await followTask(host, created.taskId, {
        signal: controller.signal,
        onTaskStatus: options.onTaskStatus,
        pollIntervalMs: created.pollIntervalMs,
      });
    }
    throw new ClientFeatureError(
      "invalid_result",
      `Request ${JSON.stringify(method)} answered with resultType ${
        JSON.stringify(kind)
      }, which this client does not know`,
    );
  } finally {
    timer?.cancel();
    route?.release();
    user?.removeEventListener("abort", onAbort);
  }
}
