/**
 * `FeatureHost`: the small contract the feature layer (tools, resources, prompts, completions,
 * logging, subscriptions) is written against. `ContextServer` fills it in; any other server core
 * with the same four abilities could host the same features.
 * @module
 */
import type { LoggingLevel } from "../../wire/meta_envelope.ts";
import type { Capabilities, Era, Implementation } from "../../wire/protocol_versions.ts";
import type { RequestId } from "../../wire/json_rpc_message.ts";

/**
 * One legacy session (the state `initialize` created on one connection). The feature layer keys its
 * per-session state (log level, resource subscriptions) on this object, so the state goes away with it.
 */
export interface FeatureSession {
  /** True once the client sent `notifications/initialized`: list-changed notifications go only to such sessions. */
  readonly initialized: boolean;
  /** Sends a notification on this session's connection. Rejects once the connection is closed. */
  notify(method: string, params?: unknown): Promise<void>;
}

/** What the feature layer reads from the context of one request (a `ServerRequestContext` satisfies it). */
export interface FeatureRequestContext {
  readonly era: Era;
  readonly protocolVersion: string;
  readonly clientInfo: Implementation | undefined;
  readonly clientCapabilities: Capabilities;
  /** The modern envelope's log level, when the request set one. */
  readonly logLevel: LoggingLevel | undefined;
  readonly requestId: RequestId;
  readonly signal: AbortSignal;
  /** The legacy session the request arrived on; `undefined` for a modern request. */
  readonly session?: FeatureSession | undefined;
  sendProgress(progress: number, total?: number, message?: string): Promise<void>;
  notify(method: string, params?: unknown): Promise<void>;
}

/** Answers one request for the feature layer. */
export type FeatureRequestHandler = (params: unknown, context: FeatureRequestContext) => unknown;

/** What the feature layer needs from the server it runs in. */
export interface FeatureHost {
  /** Registers (or replaces) the handler of request `method`. */
  handle(method: string, handler: FeatureRequestHandler): void;
  /** The live legacy sessions. */
  sessions(): Iterable<FeatureSession>;
  /** Reports a failure that is nobody's exception (a notification that could not be sent). */
  report(error: Error): void;
  /** Called whenever the capabilities the features derive may have changed (a first tool, resource…). */
  capabilitiesChanged(): void;
}
