/**
 * `LegacySessionTable`: the bounded set of live legacy HTTP sessions, keyed by `Mcp-Session-Id`.
 * @module
 */
import { integerOption, numberOption } from "../../../stream/options.ts";
import { systemTimeProvider, type TimeProvider } from "../../../stream/time_provider.ts";
import { ClosedError, InvalidOptionError } from "../../../wire/errors.ts";
import { LegacyHttpSession } from "./legacy_http_session.ts";
import { McpTelemetry } from "../../../telemetry/mcp_telemetry.ts";

/** The default {@linkcode LegacySessionTableOptions.maxSessions}. */
export const DEFAULT_MAX_SESSIONS = 1000;
/** The default {@linkcode LegacySessionTableOptions.idleTimeout}: 5 minutes. */
export const DEFAULT_SESSION_IDLE_TIMEOUT = 300_000;
/** The longest `Mcp-Session-Id` looked up; longer ones are unknown without a lookup. */
const MAX_SESSION_ID_LENGTH = 128;

/** Options of {@linkcode LegacySessionTable}. */
export interface LegacySessionTableOptions {
  /**
   * Live sessions at most; an `initialize` beyond it is refused (429). Default 1000.
   * @default 1000
   */
  maxSessions?: number;
  /**
   * Milliseconds a session may stay idle (nothing in flight, no GET stream) before it ends. Default 300 000.
   * @default 300000
   */
  idleTimeout?: number;
  /**
   * Text every session id starts with, e.g. the replica's name and a dot (`"r2."`), so a load
   * balancer can pin a session to the replica that holds it (nginx: a `map` on `$http_mcp_session_id`,
   * examples/deploy). Visible ASCII, at most 64 characters. Default none.
   * @default none
   */
  idPrefix?: string;
  /**
   * Clock of the idle timers. Default the system clock.
   * @default the system clock
   */
  timeProvider?: TimeProvider;
}

/**
 * Live legacy sessions, at most `maxSessions`, each ended after `idleTimeout` idle. Session ids are
 * random UUIDs from WebCrypto (visible ASCII, unguessable); a forged or ended id is simply unknown.
 *
 * @example
 * ```ts
 * declare const request: Request;
 * const sessions = new LegacySessionTable({ maxSessions: 100, idleTimeout: 60_000 });
 * const session = sessions.create(); // undefined when full
 * sessions.get(request.headers.get("mcp-session-id") ?? "");
 * ```
 */
export class LegacySessionTable {
  readonly maxSessions: number;
  readonly idleTimeout: number;
  readonly idPrefix: string;
  readonly #time: TimeProvider;
  /** `mcp.server.session.duration` of each session when it ends (a no-op without an OpenTelemetry SDK). */
  readonly #telemetry: McpTelemetry;
  readonly #sessions = new Map<string, LegacyHttpSession>();

  constructor(options: LegacySessionTableOptions = {}) {
    this.maxSessions = integerOption("maxSessions", options.maxSessions, DEFAULT_MAX_SESSIONS, 1);
    this.idleTimeout = numberOption("idleTimeout", options.idleTimeout, DEFAULT_SESSION_IDLE_TIMEOUT, 1);
    const idPrefix = options.idPrefix ?? "";
    if (typeof idPrefix !== "string" || idPrefix.length > 64 || !/^[\x21-\x7e]*$/.test(idPrefix)) {
      throw new InvalidOptionError(
        `Option idPrefix must be at most 64 visible ASCII characters, got ${JSON.stringify(idPrefix)}`,
      );
    }
    this.idPrefix = idPrefix;
    this.#time = options.timeProvider ?? systemTimeProvider;
    this.#telemetry = new McpTelemetry("server", this.#time);
  }

  /** Live sessions now. */
  get size(): number {
    return this.#sessions.size;
  }

  /** A new session with a fresh id, or `undefined` when `maxSessions` are live. */
  create(): LegacyHttpSession | undefined {
    if (this.#sessions.size >= this.maxSessions) return undefined;
    const started = this.#time.now();
    const session = new LegacyHttpSession(this.idPrefix + globalThis.crypto.randomUUID(), {
      idleTimeout: this.idleTimeout,
      timeProvider: this.#time,
      onEnd: (ended) => {
        if (this.#sessions.get(ended.id) === ended) this.#sessions.delete(ended.id);
        const version = ended.legacy?.protocolVersion;
        this.#telemetry.recordSession(started, {
          "network.transport": "tcp",
          ...(version === undefined ? {} : { "mcp.protocol.version": version }),
        });
      },
    });
    this.#sessions.set(session.id, session);
    return session;
  }

  /**
   * A session another replica started (found in a session store): live here under its own `id`
   * from now on. `undefined` when `maxSessions` are live or the id is not a valid one.
   */
  adopt(id: string): LegacyHttpSession | undefined {
    if (this.#sessions.size >= this.maxSessions) return undefined;
    if (id.length === 0 || id.length > MAX_SESSION_ID_LENGTH || !/^[\x21-\x7e]+$/.test(id)) return undefined;
    const existing = this.#sessions.get(id);
    if (existing) return existing;
    const session = new LegacyHttpSession(id, {
      idleTimeout: this.idleTimeout,
      timeProvider: this.#time,
      onEnd: (ended) => {
        if (this.#sessions.get(ended.id) === ended) this.#sessions.delete(ended.id);
      },
    });
    this.#sessions.set(id, session);
    return session;
  }

  /** The live session with `id`, or `undefined`. */
  get(id: string): LegacyHttpSession | undefined {
    if (id.length === 0 || id.length > MAX_SESSION_ID_LENGTH) return undefined;
    return this.#sessions.get(id);
  }

  /** Every live session. */
  values(): IterableIterator<LegacyHttpSession> {
    return this.#sessions.values();
  }

  /** Ends every session with `reason`. */
  endAll(reason: Error = new ClosedError("The server is shutting down: the session ended")): void {
    for (const session of [...this.#sessions.values()]) session.end(reason);
  }
}
