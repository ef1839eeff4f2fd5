/**
 * Options of {@linkcode JsonRpcConnection}, nested by layer: the channel's own options under `channel`.
 * @module
 */
import type { NewlineChannelOptions } from "../stream/newline_channel.ts";
import type { TimeProvider } from "../stream/time_provider.ts";
import type { IncomingRequest } from "../wire/json_rpc_message.ts";
import { InvalidOptionError } from "../wire/errors.ts";
import { isPlainObject } from "../wire/meta_envelope.ts";
import type { RequestContext } from "./request_context.ts";

/** Options of {@linkcode JsonRpcConnection}. */
export interface JsonRpcConnectionOptions {
  /**
   * Grace for running handlers after input EOF. Default 5 000 ms.
   * @default 5000
   */
  endOfStreamTimeout?: number;
  /**
   * After the grace (or on close): the wait for handlers. Also the no-progress deadline of the whole
   * linger: output with bytes pending that completes no block write for this long is cut off, even
   * while handlers are still running. Default 5 000 ms.
   * @default 5000
   */
  shutdownTimeout?: number;
  /**
   * Handlers running at once; at the limit requests wait (in the input backlog, then in the pipe).
   * Notification handlers that return a promise count too, until it settles: a flood of notifications
   * to an async handler waits the same way. Default 256.
   * @default 256
   */
  maxConcurrentRequests?: number;
  /**
   * Bytes of input held at once: messages waiting in the input backlog plus the messages whose
   * handlers are running (requests, notifications, batches), each counted as its line's UTF-8 length.
   * Reading stops at the bound until a handler finishes; one larger message is still read into an idle
   * connection (nothing queued, nothing running). Default 64 MiB.
   * @default 64 MiB
   */
  maxInFlightBytes?: number;
  /**
   * Asked for every JSON-RPC batch (an array line): true to serve it (each element handled, the
   * replies sent as one array, none for an all-notification batch), else it gets one -32600. A server
   * sets it for sessions that negotiated 2025-03-26, the one version with batches. Default: never.
   * @default never
   */
  acceptsBatch?: () => boolean;
  /**
   * Input read ahead of dispatch, in UTF-8 bytes plus a small per-message overhead. While
   * output is full or handlers are at the limit, reading stops once this much waits, so memory stays
   * bounded and the peer's pipe fills; the read-ahead lets EOF behind a few waiting messages be seen.
   * One larger message still enters an empty backlog. Default 64 KiB.
   * @default 64 KiB
   */
  maxQueuedInputBytes?: number;
  /**
   * The clock of every deadline (also the channel's, unless `channel.timeProvider` is set). Default: the system clock.
   * @default the system clock
   */
  timeProvider?: TimeProvider;
  /**
   * Options of the {@linkcode NewlineChannel} the connection builds over a duplex (ignored when it is
   * given a channel). `timeProvider` and `shutdownTimeout` default to the connection's own.
   */
  channel?: NewlineChannelOptions;
  /**
   * Fallback for requests without a handler from `handle()`. Default: -32601.
   * @default -32601
   */
  onRequest?: (request: IncomingRequest, context: RequestContext) => unknown;
  /** Fallback for notifications without a handler from `onNotification()`. */
  onNotification?: (method: string, params: unknown) => unknown;
  /** A request for which this is true is an admission barrier: its reply is queued before the next input is dispatched. */
  isBarrier?: (request: IncomingRequest) => boolean;
  /** Every bad thing that is nobody's exception: bad input, unknown reply ids, handler failures. */
  onReport?: (error: Error) => void;
  /**
   * Answer bad input lines (invalid JSON or UTF-8, oversize, not JSON-RPC) with an error reply
   * (`true`, default), or only report them (`false`: what a client does with a server's stdout
   * banner, which a strict legacy server must not be answered for before `initialize`).
   */
  answerInvalidInput?: boolean;
}

const CHANNEL_KEYS = ["maxQueuedOutputBytes", "writeBlockBytes", "maxMessageBytes", "drainTimeout"] as const;

/**
 * Connection options from options that may still carry the channel's bounds at the top level (the
 * flat shape `ContextServer` and `ContextClient` accept today): those move under `channel`, where an
 * explicit `channel` entry wins.
 */
export function nestChannelOptions<T extends JsonRpcConnectionOptions>(
  options: T & NewlineChannelOptions,
): T {
  const flat = options as unknown as Record<string, unknown>;
  if (!CHANNEL_KEYS.some((key) => flat[key] !== undefined)) return options;
  const nested = { ...options } as unknown as Record<string, unknown>;
  const channel: Record<string, unknown> = {};
  for (const key of CHANNEL_KEYS) {
    if (flat[key] !== undefined) channel[key] = flat[key];
    delete nested[key];
  }
  nested.channel = { ...channel, ...options.channel };
  return nested as T;
}

/** Connection and channel option names that moved under `connection` (a JavaScript caller gets told). */
const CONNECTION_KEYS = [
  "endOfStreamTimeout",
  "shutdownTimeout",
  "maxConcurrentRequests",
  "maxQueuedInputBytes",
  "answerInvalidInput",
  "maxQueuedOutputBytes",
  "writeBlockBytes",
  "maxMessageBytes",
  "drainTimeout",
];

/**
 * Checks the `connection` option of a server's or client's options: an object when given, and no
 * connection or channel option at the top level (`InvalidOptionError` saying where it belongs).
 */
export function checkConnectionNesting(options: object, connection: unknown): void {
  if (connection !== undefined && !isPlainObject(connection)) {
    throw new InvalidOptionError("Option connection must be an object");
  }
  for (const key of CONNECTION_KEYS) {
    if (key in options) {
      throw new InvalidOptionError(
        `Option ${key} belongs under connection: { ${key} } (options nest by layer)`,
      );
    }
  }
}
