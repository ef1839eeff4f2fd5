/** Test doubles of the feature layer: a recording host, sessions and request contexts of either era. */
import type {
  FeatureHost,
  FeatureRequestContext,
  FeatureRequestHandler,
  FeatureSession,
  ReachableSession,
} from "../../../../src/server/features/feature_host.ts";
import type { LoggingLevel } from "../../../../src/wire/meta_envelope.ts";
import { InputRounds } from "../../../../src/server/input/input_rounds.ts";

// deno-lint-ignore no-explicit-any
export type Json = any;

/** A legacy session that records what it was sent; `logLevel` is what `logging/setLevel` set. */
export class FakeSession implements ReachableSession {
  initialized = true;
  logLevel: LoggingLevel | undefined;
  readonly sent: { method: string; params: unknown }[] = [];
  notify(method: string, params?: unknown): Promise<void> {
    this.sent.push({ method, params });
    return Promise.resolve();
  }
}

/** A host that keeps the handlers it was given and the sessions a test adds. */
export class FakeHost implements FeatureHost {
  readonly handlers = new Map<string, FeatureRequestHandler>();
  readonly live = new Set<FakeSession>();
  readonly reports: Error[] = [];
  capabilityChanges = 0;
  handle(method: string, handler: FeatureRequestHandler): void {
    this.handlers.set(method, handler);
  }
  *sessions(): Iterable<FeatureSession & ReachableSession> {
    for (const session of this.live) if (session.initialized) yield session;
  }
  setLogLevel(session: FeatureSession, level: LoggingLevel): void {
    (session as FakeSession).logLevel = level;
  }
  report(error: Error): void {
    this.reports.push(error);
  }
  capabilitiesChanged(): void {
    this.capabilityChanges++;
  }
  /** Calls the handler of `method` as the server would. */
  async call(method: string, params: unknown, context: FeatureRequestContext): Promise<Json> {
    const handler = this.handlers.get(method);
    if (!handler) throw new Error(`No handler for ${method}`);
    return await handler(params, context);
  }
}

/** A request context whose notifications are recorded in `sent`. */
export interface FakeContext extends FeatureRequestContext {
  readonly sent: { method: string; params: unknown }[];
  readonly controller: AbortController;
}

export function modernContext(
  options: { logLevel?: LoggingLevel; requestId?: string | number } = {},
): FakeContext {
  return context({
    era: "modern",
    protocolVersion: "2026-07-28",
    logLevel: options.logLevel,
    requestId: options.requestId ?? 1,
    session: undefined,
  });
}

/** A legacy request on `session`, carrying the level the session set (as the server does). */
export function legacyContext(
  session: FakeSession = new FakeSession(),
  requestId: string | number = 1,
): FakeContext {
  return context({
    era: "legacy",
    protocolVersion: "2025-11-25",
    logLevel: session.logLevel,
    requestId,
    session,
  });
}

function context(
  base: Pick<FeatureRequestContext, "era" | "protocolVersion" | "logLevel" | "requestId" | "session">,
): FakeContext {
  const sent: { method: string; params: unknown }[] = [];
  const controller = new AbortController();
  // No way back to the client: an ask fails at once (legacy) or ends the round (modern).
  const input = new InputRounds().passive({
    era: base.era,
    method: "tools/call",
    params: {},
    clientCapabilities: {},
  });
  return {
    ...base,
    elicit: (params, options) => input.elicit(params, options),
    sample: (params, options) => input.sample(params, options),
    listRoots: (options) => input.listRoots(options),
    canElicit: (mode) => input.canElicit(mode),
    canSample: () => input.canSample(),
    canListRoots: () => input.canListRoots(),
    round: 0,
    state: undefined,
    once: (name, compute) => input.once(name, compute),
    roundSignal: input.roundSignal,
    clientInfo: { name: "fake", version: "1" },
    clientCapabilities: {},
    sent,
    controller,
    signal: controller.signal,
    notify(method, params) {
      sent.push({ method, params });
      return Promise.resolve();
    },
    sendProgress(progress, { total, message } = {}) {
      sent.push({ method: "notifications/progress", params: { progress, total, message } });
      return Promise.resolve();
    },
  };
}
