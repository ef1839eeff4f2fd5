/**
 * `HandlerContext`: what a tool, resource, prompt or completion handler gets besides its arguments.
 * @module
 */
import { InvalidOptionError } from "../../wire/errors.ts";
import { type LoggingLevel, metaOf } from "../../wire/meta_envelope.ts";
import type { Capabilities, Era, Implementation } from "../../wire/protocol_versions.ts";
import type { RequestId } from "../../wire/json_rpc_message.ts";
import type { FeatureRequestContext } from "./feature_host.ts";
import type { InputContext } from "../input/input_rounds.ts";
import { ForwardingInputContext } from "../input/forwarding_input_context.ts";
import type { SendProgressOptions } from "../send_progress_options.ts";
import { sendElicitationComplete } from "../input/elicitation_complete.ts";
import { isLoggingLevel, type LogLevels, passesLevel } from "./log_levels.ts";

/**
 * The context of one feature request, in either era. Handlers read the client's identity and
 * capabilities, the request's `_meta`, watch `signal` for cancellation, report progress and log,
 * and ask the client (`elicit`, `sample`, `listRoots`: real requests in a legacy session, input
 * rounds in the modern era; see `InputRounds`).
 */
export interface HandlerContext extends InputContext {
  /** `modern` (2026-07-28, per-request envelope) or `legacy` (after `initialize`). */
  readonly era: Era;
  /** The protocol version of this request. */
  readonly protocolVersion: string;
  /** Who the client says it is, when it said. */
  readonly clientInfo: Implementation | undefined;
  /** The capabilities the client declared (`{}` for none). */
  readonly clientCapabilities: Capabilities;
  /** The JSON-RPC id of this request. */
  readonly requestId: RequestId;
  /** The request's `params._meta` (`{}` when it had none): progress token, envelope keys, custom keys. */
  readonly meta: Readonly<Record<string, unknown>>;
  /** Aborted when the client cancels the request or the connection closes. */
  readonly signal: AbortSignal;
  /**
   * Sends `notifications/progress` for this request (only when the client sent a `progressToken`;
   * else a no-op). `progress` must increase from call to call. Rejects with `InvalidOptionError`
   * when `options` is not a {@linkcode SendProgressOptions}.
   *
   * @example
   * ```ts ignore
   * await ctx.sendProgress(1, { total: 2, message: "fetching" });
   * ```
   */
  sendProgress(progress: number, options?: SendProgressOptions): Promise<void>;
  /**
   * Sends `notifications/message` when the client asked for messages at `level` or above: a modern
   * request through its `_meta` log level (nothing is sent without one), a legacy session through
   * `logging/setLevel` (every level until it sets one). Throws `InvalidOptionError` for an unknown level.
   */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
  /**
   * Ends this request's SSE connection now, before the result, without ending its stream: the
   * client resumes with `GET` + `Last-Event-ID` and gets what follows (2025-11-25 polling). True when
   * done (legacy HTTP session, handler with `resumability`); false elsewhere, where it does nothing.
   */
  closeSseStream(): boolean;
  /**
   * Reports a URL-mode elicitation done: the user finished the interaction at its `url` (2025-11-25
   * `notifications/elicitation/complete`). Legacy: sent on this request's stream while it is open, on
   * its session once it is answered (a stream connection; an HTTP session's GET stream, so a context
   * kept past the reply still reaches the client), and resolves true; false when nothing can carry
   * it (answered on stateless HTTP). Modern: sends nothing and resolves false, as 2026-07-28 has no
   * such notification: the client retries and the handler decides (from `ctx.state` or its own store)
   * whether the interaction is done. Rejects with `InvalidOptionError` when `elicitationId` is not a
   * non-empty string.
   *
   * @example
   * ```ts ignore
   * await ctx.elicit({ mode: "url", message: "Sign in", url, elicitationId: "e1" });
   * await signInDone; // the out-of-band interaction
   * await ctx.elicitationComplete("e1");
   * ```
   */
  elicitationComplete(elicitationId: string): Promise<boolean>;
  /**
   * Tools with `taskStart: "manual"`: ends the synchronous part of the call. The request answers a
   * `CreateTaskResult` and the rest of the handler runs as the task (asks become the task's
   * `input_required`, progress its `statusMessage`, `signal` its cancellation). Resolves at once,
   * doing nothing, when the request cannot become a task (legacy era, no tasks capability, a tool
   * without task support) or already is one.
   */
  runAsTask(): Promise<void>;
  /** The id of the task this handler runs as, once it is one; `undefined` in a plain request. */
  readonly taskId: string | undefined;
}

/** The {@linkcode HandlerContext} of one request, over the server's request context. */
export class RequestHandlerContext extends ForwardingInputContext implements HandlerContext {
  readonly #request: FeatureRequestContext;
  readonly #params: unknown;
  readonly #levels: LogLevels;

  constructor(request: FeatureRequestContext, params: unknown, levels: LogLevels) {
    super(request, false);
    this.#request = request;
    this.#params = params;
    this.#levels = levels;
  }

  /** `modern` (2026-07-28, per-request envelope) or `legacy` (after `initialize`). */
  get era(): Era {
    return this.#request.era;
  }

  /** The protocol version of this request. */
  get protocolVersion(): string {
    return this.#request.protocolVersion;
  }

  /** Who the client says it is, when it said. */
  get clientInfo(): Implementation | undefined {
    return this.#request.clientInfo;
  }

  /** The capabilities the client declared (`{}` for none). */
  get clientCapabilities(): Capabilities {
    return this.#request.clientCapabilities;
  }

  /** The JSON-RPC id of this request. */
  get requestId(): RequestId {
    return this.#request.requestId;
  }

  /** The request's `params._meta` (`{}` when it had none): progress token, envelope keys, custom keys. */
  get meta(): Readonly<Record<string, unknown>> {
    return metaOf(this.#params) ?? {};
  }

  /** Aborted when the client cancels the request or the connection closes. */
  get signal(): AbortSignal {
    return this.#request.signal;
  }

  runAsTask(): Promise<void> {
    return Promise.resolve();
  }

  get taskId(): string | undefined {
    return undefined;
  }

  /** The underlying server request context (what server-to-client requests will be built on). */
  get request(): FeatureRequestContext {
    return this.#request;
  }

  /**
   * Sends `notifications/progress` for this request (only when the client sent a `progressToken`;
   * else a no-op). `progress` must increase from call to call.
   */
  sendProgress(progress: number, options?: SendProgressOptions): Promise<void> {
    return this.#request.sendProgress(progress, options);
  }

  closeSseStream(): boolean {
    return this.#request.closeSseStream?.() ?? false;
  }

  elicitationComplete(elicitationId: string): Promise<boolean> {
    return this.#request.elicitationComplete?.(elicitationId) ??
      sendElicitationComplete(this.#request, elicitationId);
  }

  /**
   * Sends `notifications/message` when the client asked for messages at `level` or above: a modern
   * request through its `_meta` log level (nothing is sent without one), a legacy session through
   * `logging/setLevel` (every level until it sets one).
   */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    if (!isLoggingLevel(level)) {
      throw new InvalidOptionError(`Log level must be one of debug…emergency, got ${JSON.stringify(level)}`);
    }
    const minimum = this.#levels.minimumFor(this.#request);
    if (minimum === undefined || !passesLevel(level, minimum)) return Promise.resolve();
    const params: Record<string, unknown> = { level, data };
    if (logger !== undefined) params.logger = logger;
    return this.#request.notify("notifications/message", params);
  }
}
