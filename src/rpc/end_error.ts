/**
 * The error for calls that cannot complete once a connection has ended.
 * @module
 */
import type { Duplex } from "../stream/duplex.ts";
import type { NewlineChannel } from "../stream/newline_channel.ts";
import { ClosedError } from "../wire/errors.ts";
import type { TransportConnection } from "./transport.ts";

/** The error for calls that cannot complete: the transport's own account when it has one, else `fallback`. */
export function endError(transport: Duplex | NewlineChannel, fallback?: Error): Error {
  const connection = transport as Partial<TransportConnection>;
  const own = typeof connection.closeError === "function" ? connection.closeError() : undefined;
  return own ?? fallback ?? new ClosedError("The connection is closed: the peer ended its output");
}
