/**
 * `ServerLog`: a server's log messages for the feature API: the level asked for (legacy
 * `logging/setLevel`; modern: `_meta` on every later feature request) and the `notifications/message`
 * handed to `onLog` handlers.
 * @module
 */
import { InvalidOptionError } from "../../wire/errors.ts";
import { isPlainObject, LOGGING_LEVELS, type LoggingLevel } from "../../wire/meta_envelope.ts";
import { MetaKeys } from "../../wire/protocol_versions.ts";
import { ClientFeatureError } from "./feature_errors.ts";
import type { FeatureHost } from "./feature_host.ts";
import type { FeatureRequestOptions } from "./feature_request.ts";
import type { LogEntry } from "./feature_types.ts";
import type { NotificationFanout } from "./notification_fanout.ts";

/** What {@linkcode ServerLog} needs from the feature API. */
export interface ServerLogOptions {
  host: FeatureHost;
  fanout: NotificationFanout;
  /** Sends `logging/setLevel` as a feature request. */
  sendSetLevel(level: LoggingLevel, options: FeatureRequestOptions): Promise<unknown>;
}

/** The log level asked for, and the log messages' handlers (see the module note). */
export class ServerLog {
  readonly #o: ServerLogOptions;
  #level: LoggingLevel | undefined;

  constructor(options: ServerLogOptions) {
    this.#o = options;
  }

  /** The level given to {@linkcode setLevel}, if any. */
  get level(): LoggingLevel | undefined {
    return this.#level;
  }

  /** The `_meta` log level of a modern feature request: `level` (its own), else the client's. */
  meta(level: LoggingLevel | undefined): Record<string, unknown> | undefined {
    const chosen = level ?? this.#level;
    return chosen !== undefined && this.#o.host.era() === "modern"
      ? { [MetaKeys.logLevel]: chosen }
      : undefined;
  }

  /** Asks for log messages at `level` and above (legacy: `logging/setLevel`). */
  async setLevel(level: LoggingLevel, options: FeatureRequestOptions): Promise<void> {
    if (!(LOGGING_LEVELS as readonly string[]).includes(level)) {
      throw new InvalidOptionError(
        `Log level must be one of ${LOGGING_LEVELS.join(", ")}, got ${JSON.stringify(level)}`,
      );
    }
    if (this.#o.host.era() === "legacy") await this.#o.sendSetLevel(level, options);
    this.#level = level;
  }

  /** Calls `handler` with every `notifications/message`; returns the function that stops it. */
  onLog(handler: (entry: LogEntry) => void): () => void {
    return this.#o.fanout.on("notifications/message", (params) => {
      if (!isPlainObject(params) || typeof params.level !== "string") {
        this.#o.host.report(
          new ClientFeatureError(
            "invalid_result",
            `Log notification without a level: ${JSON.stringify(params)?.slice(0, 200)}`,
          ),
        );
        return;
      }
      const entry: { level: string; logger?: string; data: unknown } = {
        level: params.level,
        data: params.data,
      };
      if (typeof params.logger === "string") entry.logger = params.logger;
      handler(entry);
    });
  }
}
