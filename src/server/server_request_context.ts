/**
 * What a server request handler gets besides its params: the era facts dispatch derived, the
 * transport's signal and notification sink, and (where the transport has one) a way back to the client.
 * @module
 */
import { ProtocolError } from "../wire/errors.ts";
import type { RequestId } from "../wire/json_rpc_message.ts";
import { type LoggingLevel, progressTokenOf } from "../wire/meta_envelope.ts";
import type { Capabilities, Era, Implementation } from "../wire/protocol_versions.ts";
import type { DispatchContext, ServerSession, ServerToClientRequestOptions } from "./dispatch_context.ts";
import { DETACHED_NOTIFY, type Notify } from "./detached_notify.ts";
import { WHEN_CANCELLED, whenCancelled } from "./when_cancelled.ts";
import type { InputContext } from "./input/input_rounds.ts";
import { ForwardingInputContext } from "./input/forwarding_input_context.ts";
import { type SendProgressOptions, sendProgressOptionsOf } from "./send_progress_options.ts";
import { sendElicitationComplete } from "./input/elicitation_complete.ts";

/** The era facts of one request, derived by dispatch from the `_meta` envelope or the legacy session. */
export interface RequestEra {
  /** The era of this request: `modern` when it carried the `_meta` envelope, else `legacy`. */
  readonly era: Era;
  /** The request's version (modern) or the version negotiated by `initialize` (legacy). */
  readonly protocolVersion: string;
  /** Who the client says it is, from the envelope or from `initialize`. */
  readonly clientInfo: Implementation | undefined;
  /** The client's capabilities, from the envelope or from `initialize` (`{}` when none). */
  readonly clientCapabilities: Capabilities;
  /** The log level: the modern envelope's, or the legacy session's; `undefined` when none was set. */
  readonly logLevel: LoggingLevel | undefined;
}

/**
 * What a request handler gets besides the params. Its {@linkcode InputContext} part (`elicit`,
 * `sample`, `listRoots`, …) asks the client in either era: see `InputRounds` for the handler model.
 */
export interface ServerRequestContext extends RequestEra, InputContext {
  readonly requestId: RequestId;
  readonly method: string;
  /** The session of the connection (stream) or `Mcp-Session-Id` this request came on; `undefined` on stateless transports. */
  readonly session: ServerSession | undefined;
  /** Aborted when the client cancels this request, when its transport ends, and on close. */
  readonly signal: AbortSignal;
  /**
   * Sends `notifications/progress` with this request's `_meta.progressToken`; a no-op without one.
   * Rejects with `InvalidOptionError` when `options` is not a {@linkcode SendProgressOptions}.
   */
  sendProgress(progress: number, options?: SendProgressOptions): Promise<void>;
  /** Sends a notification tied to this request; a no-op once it is answered or cancelled. Waits while output is full. */
  notify(method: string, params?: unknown): Promise<void>;
  /**
   * Sends a request to the client and resolves with its result. Rejects at once with a
   * `ProtocolError` when the request is modern (the modern era has no
   * server-to-client requests) or when the transport cannot carry one (stateless HTTP): it never hangs.
   */
  request(method: string, params?: unknown, options?: ServerToClientRequestOptions): Promise<unknown>;
  /**
   * Ends this request's SSE connection now, before the reply, without ending its stream: the
   * client resumes with `GET` + `Last-Event-ID` after the stream's `retry` and gets what follows
   * (2025-11-25 polling). True when done: a legacy HTTP session whose handler has `resumability`.
   */
  closeSseStream(): boolean;
  /**
   * Legacy: sends `notifications/elicitation/complete` `{elicitationId}` for a URL-mode elicitation
   * on this request's stream while it is open, on its session once it is answered (a stream
   * connection; an HTTP session's GET stream), and resolves true; false when nothing can carry it.
   * Modern: sends nothing (2026-07-28 removed the notification) and resolves false. Rejects with
   * `InvalidOptionError` for an empty id.
   */
  elicitationComplete(elicitationId: string): Promise<boolean>;
}

/** The context of one request; the transport's `AbortSignal` is read only if the handler reads it. */
export class ServerContext extends ForwardingInputContext implements ServerRequestContext {
  readonly era: Era;
  readonly protocolVersion: string;
  readonly clientInfo: Implementation | undefined;
  readonly clientCapabilities: Capabilities;
  readonly logLevel: LoggingLevel | undefined;
  readonly requestId: RequestId;
  readonly method: string;
  readonly #transport: DispatchContext;
  readonly #params: unknown;

  constructor(
    transport: DispatchContext,
    request: { id: RequestId; method: string; params: unknown },
    era: RequestEra,
    input: InputContext,
  ) {
    super(input, true);
    this.era = era.era;
    this.protocolVersion = era.protocolVersion;
    this.clientInfo = era.clientInfo;
    this.clientCapabilities = era.clientCapabilities;
    this.logLevel = era.logLevel;
    this.requestId = request.id;
    this.method = request.method;
    this.#transport = transport;
    this.#params = request.params;
  }

  get signal(): AbortSignal {
    return this.#transport.signal;
  }

  get session(): ServerSession | undefined {
    return this.#transport.session;
  }

  notify(method: string, params?: unknown): Promise<void> {
    return this.#transport.notify(method, params);
  }

  /** `notify` holding only the transport: see {@linkcode notifierOf}. */
  [DETACHED_NOTIFY](): Notify {
    const transport = this.#transport;
    return (method, params) => transport.notify(method, params);
  }

  /** `whenCancelled` on the transport's context: its hook when it has one, so the signal is not made. */
  [WHEN_CANCELLED](callback: () => void): void {
    whenCancelled(this.#transport, callback);
  }

  closeSseStream(): boolean {
    return this.#transport.closeStream?.() ?? false;
  }

  elicitationComplete(elicitationId: string): Promise<boolean> {
    const transport = this.#transport;
    const session = transport.session;
    return sendElicitationComplete({
      era: this.era,
      notify: (method, params) => transport.notify(method, params),
      answered: transport.answered,
      sessionNotify: session?.notify === undefined
        ? undefined
        : (method, params) => session.notify!(method, params),
    }, elicitationId);
  }

  sendProgress(progress: number, options?: SendProgressOptions): Promise<void> {
    let total: number | undefined, message: string | undefined;
    try {
      ({ total, message } = sendProgressOptionsOf(options));
    } catch (error) {
      return Promise.reject(error);
    }
    const progressToken = progressTokenOf(this.#params);
    if (progressToken === undefined) return Promise.resolve();
    const body: Record<string, unknown> = { progressToken, progress };
    if (total !== undefined) body.total = total;
    if (message !== undefined) body.message = message;
    return this.#transport.notify("notifications/progress", body);
  }

  request(method: string, params?: unknown, options: ServerToClientRequestOptions = {}): Promise<unknown> {
    if (this.era === "modern") {
      return Promise.reject(
        new ProtocolError(
          `Cannot send ${method} to the client: request ${
            JSON.stringify(this.requestId)
          } is modern, and the modern era has no server-to-client requests`,
        ),
      );
    }
    const send = this.#transport.request;
    if (send === undefined) {
      return Promise.reject(
        new ProtocolError(
          `Cannot send ${method} to the client: this transport carries no server-to-client requests (stateless HTTP)`,
        ),
      );
    }
    return send.call(this.#transport, method, params, options);
  }
}
