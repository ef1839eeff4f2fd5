/**
 * The rule "no new handler while output is full", held by construction: a request handler already
 * started owes a reply the output must take, so it counts against the output room before its reply
 * exists, each at the average size of the lines written so far.
 * @module
 */
import type { NewlineChannel } from "../stream/newline_channel.ts";
import type { OutputRoom } from "../stream/output_room.ts";

/**
 * True when the queued output of `channel` plus `owed` replies of the average line size (`room`, the
 * channel's `outputRoomOf`) would fill the output queue, so a new request handler must wait.
 * Never true with nothing owed: a handler may always start while the queue itself has room (and one
 * message larger than the bound is accepted into an empty queue).
 */
export function owedRepliesFillOutput(channel: NewlineChannel, room: OutputRoom, owed: number): boolean {
  return owed > 0 && channel.queuedOutputBytes + owed * room.averageLineBytes >= channel.maxQueuedOutputBytes;
}

/** Resolves when the output room may have changed or a handler ended (either can let a handler start). */
export function outputOrHandlersChanged(room: OutputRoom, handlerEnded: Promise<void>): Promise<void> {
  return Promise.race([room.changed.wait(), handlerEnded]);
}
