/**
 * `FeatureHost`: the small contract the feature layer (tools, resources, prompts, completions,
 * logging, subscriptions) is written against. `ContextServer` fills it in; any other server core
 * with the same abilities could host the same features.
 * @module
 */
import type { LoggingLevel } from "../../wire/meta_envelope.ts";
import type { Capabilities, Era, Implementation } from "../../wire/protocol_versions.ts";
import type { RequestId } from "../../wire/json_rpc_message.ts";
import type { InputContext } from "../input/input_rounds.ts";
import type { TimeProvider } from "../../stream/time_provider.ts";
import type { SendProgressOptions } from "../send_progress_options.ts";

/**
 * One session (the state `initialize` created on one connection) as the feature layer sees it: an
 * identity its per-session state (resource subscriptions) is keyed on, so that state goes with it.
 */
export type FeatureSession = object;

/** A legacy session the host can reach outside any request. */
export interface ReachableSession {
  /** Sends a notification to the session. Rejects once its connection is closed. */
  notify(method: string, params?: unknown): Promise<void>;
}

/**
 * What the feature layer reads from the context of one request (a `ServerRequestContext` satisfies
 * it), including its {@linkcode InputContext} part: asking the client in either era.
 */
export interface FeatureRequestContext extends InputContext {
  readonly era: Era;
  readonly protocolVersion: string;
  readonly clientInfo: Implementation | undefined;
  readonly clientCapabilities: Capabilities;
  /** The request's log level: the modern envelope's, or the one its legacy session set; `undefined` when none was set. */
  readonly logLevel: LoggingLevel | undefined;
  readonly requestId: RequestId;
  readonly signal: AbortSignal;
  /** The session the request arrived on, when its transport keeps one. */
  readonly session?: FeatureSession | undefined;
  sendProgress(progress: number, options?: SendProgressOptions): Promise<void>;
  notify(method: string, params?: unknown): Promise<void>;
  /** Ends the request's SSE connection early so the client resumes it (legacy HTTP with resumability). */
  closeSseStream?(): boolean;
  /** Sends `notifications/elicitation/complete` (legacy; see `HandlerContext.elicitationComplete`). */
  elicitationComplete?(elicitationId: string): Promise<boolean>;
}

/** Answers one request for the feature layer. */
export type FeatureRequestHandler = (params: unknown, context: FeatureRequestContext) => unknown;

/** What the feature layer needs from the server it runs in. */
export interface FeatureHost {
  /** Registers (or replaces) the handler of request `method`. */
  handle(method: string, handler: FeatureRequestHandler): void;
  /**
   * The live legacy sessions that finished `initialize` (sent `notifications/initialized`) and can be
   * reached outside a request: the same objects request contexts carry as `session`.
   */
  sessions(): Iterable<FeatureSession & ReachableSession>;
  /** Remembers a legacy session's `logging/setLevel`; later requests on it carry the level as `logLevel`. */
  setLogLevel(session: FeatureSession, level: LoggingLevel): void;
  /** Reports a failure that is nobody's exception (a notification that could not be sent). */
  report(error: Error): void;
  /** Called whenever the capabilities the features derive may have changed (a first tool, resource…). */
  capabilitiesChanged(): void;
  /**
   * The server's clock (task leases and TTLs). Default: the system clock.
   * @default the system clock
   */
  readonly timeProvider?: TimeProvider;
}
