/**
 * `serverFeatureHost`: the {@linkcode FeatureHost} a `ContextServer` gives its feature layer, built
 * from the server's handler registry, its live sessions and its reporter.
 * @module
 */
import type { TimeProvider } from "../stream/time_provider.ts";
import type { ServerSession } from "./dispatch_context.ts";
import type { ServerHandlers, ServerRequestHandler } from "./dispatch.ts";
import type { FeatureHost } from "./features/feature_host.ts";

/** What a server lends its feature layer. */
export interface ServerFeatureHostParts {
  /** The server's handler registry: features register their methods in it. */
  handlers: ServerHandlers;
  /** The server's live sessions (read on each use, so later sessions are seen). */
  sessions: ReadonlySet<ServerSession>;
  /** Reports a failure that is nobody's exception. */
  report(error: Error): void;
  /** Called when the capabilities the features derive may have changed. */
  capabilitiesChanged(): void;
  /** The server's clock. */
  timeProvider?: TimeProvider;
}

/** The feature layer's view of a server: its handler registry, its live legacy sessions, its reporter. */
export function serverFeatureHost(parts: ServerFeatureHostParts): FeatureHost {
  const { handlers, sessions } = parts;
  return {
    handle: (method, handler) => void handlers.setRequest(method, handler as ServerRequestHandler),
    *sessions() {
      for (const session of sessions) {
        if (session.legacy?.initialized && session.notify) {
          yield session as ServerSession & { notify: NonNullable<ServerSession["notify"]> };
        }
      }
    },
    setLogLevel: (session, level) => {
      const legacy = (session as ServerSession).legacy;
      if (legacy) legacy.logLevel = level;
    },
    report: parts.report,
    capabilitiesChanged: parts.capabilitiesChanged,
    timeProvider: parts.timeProvider,
  };
}
