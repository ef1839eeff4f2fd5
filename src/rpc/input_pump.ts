/**
 * The two loops of a connection's input side: one reads lines into the {@linkcode InputBacklog}
 * while it has room, the other dispatches the backlog in order as output room and handler slots
 * allow. Neither ever drops or rejects a message for lack of room; they wait.
 * @module
 */
import type { NewlineChannel } from "../stream/newline_channel.ts";
import { outputRoomOf } from "../stream/output_room.ts";
import { asError, ClosedError } from "../wire/errors.ts";
import type { ConnectionLifecycle } from "./connection_state.ts";
import type { HandlerSlots } from "./handler_slots.ts";
import type { InputBacklog } from "./input_backlog.ts";
import type { OversizeReply } from "./oversize_reply.ts";
import { outputOrHandlersChanged, owedRepliesFillOutput } from "./owed_reply_room.ts";
import type { Reply } from "./pending_calls.ts";

/** What the loops need from the connection. */
export interface PumpHost {
  readonly channel: NewlineChannel;
  readonly lifecycle: ConnectionLifecycle;
  readonly backlog: InputBacklog;
  readonly slots: HandlerSlots;
  readonly answerInvalid: boolean;
  report(error: Error): void;
  /** A reply to one of our calls, as soon as it is read. */
  settle(reply: Reply): void;
  /** A notification, in order (or at once for `notifications/cancelled`); `bytes` count until its handler ends. */
  notification(method: string, params: unknown, bytes?: number, requestIdLiteral?: string): void;
  /** An oversize line that was a reply: its call fails (or, without a readable id, every call and the connection). */
  oversizeReply(reply: OversizeReply): void;
  sendOwnError(reply: Record<string, unknown>): Promise<void>;
  /** A send failed or output may have broken: the connection checks. */
  sendFailed(): void;
  /** Reading failed: the transport is broken. */
  fault(error: Error): void;
  /** Input reached EOF. */
  endOfInput(): void;
}

/**
 * Reads input into the backlog until it is full, then waits. Replies to our own requests and
 * `notifications/cancelled` take effect as they are read (neither needs a slot or output room, and
 * a handler at the limit may be waiting for exactly those). EOF right behind a few unread messages
 * is still seen, so the EOF bounds apply even while output is backed up.
 */
export async function readInput(host: PumpHost): Promise<void> {
  const { lifecycle: life, backlog, channel } = host;
  try {
    for (;;) {
      while (backlog.full && life.reading) await backlog.changed.wait();
      if (!life.reading) return;
      const item = await channel.read();
      if (!life.reading) return;
      if (item === undefined) break;
      const now = backlog.admit(item, host.answerInvalid, host.report);
      if (now === undefined) continue;
      if (now.kind === "notification") host.notification(now.method, now.params, 0, now.requestIdLiteral);
      else if (now.kind === "oversize_reply") host.oversizeReply(now);
      else host.settle(now);
    }
  } catch (error) {
    if (life.reading) host.fault(error instanceof Error ? error : new ClosedError(String(error)));
    return;
  } finally {
    backlog.changed.fire();
  }
  host.endOfInput();
}

/**
 * Dispatches the backlog in input order: each entry waits while the output queue is full, a request
 * also while the replies its running handlers owe would fill it, and a request or a notification
 * also waits for a free slot (`maxConcurrentRequests`); nothing is rejected for any of these.
 */
export async function dispatchInput(host: PumpHost): Promise<void> {
  const { lifecycle: life, backlog, channel, slots } = host;
  const room = outputRoomOf(channel);
  for (;;) {
    if (!life.dispatching) return;
    const entry = backlog.head;
    if (entry === undefined) {
      if (!life.reading) return; // input ended and everything read was dispatched
      await backlog.changed.wait();
      continue;
    }
    // The channel wakes room waiters on every completed block, every sender leaving, and teardown.
    while (channel.outputFull && !channel.outputClosed && life.dispatching) await channel.waitForOutputRoom();
    host.sendFailed();
    if (backlog.head !== entry) continue; // cancelled or dropped meanwhile
    if (!life.dispatching) return;
    // Replies owed by handlers already running count against the room too, so a chunk of requests
    // dispatched at once starts no more handlers than the output can take the replies of.
    if ((entry.request || entry.batch) && owedRepliesFillOutput(channel, room, slots.owedReplies)) {
      await outputOrHandlersChanged(room, slots.freed.wait());
      continue;
    }
    if ((entry.request || entry.notification) && slots.full) {
      await slots.freed.wait(); // fired when a handler ends and when the backlog loses entries
      continue;
    }
    // A dispatched message's bytes count against maxInFlightBytes until its handler ends.
    if (!entry.reply) backlog.hold(entry.bytes);
    backlog.shift();
    try {
      if (entry.reply) await host.sendOwnError(entry.reply);
      else if (entry.notification) {
        host.notification(entry.notification.method, entry.notification.params, entry.bytes);
      } else if (entry.request) {
        const barrier = slots.dispatch(entry.request, entry.key!, entry.bytes);
        if (barrier) await barrier; // an ordinary request is not waited for: no promise hop per request
      } else if (entry.batch) {
        void slots.dispatchBatch(entry.batch, entry.bytes).catch((error: unknown) =>
          host.report(asError(error))
        );
      }
    } catch (error) {
      host.report(asError(error)); // e.g. a throwing isBarrier: the loop goes on
    }
    slots.freed.fire(); // the linger waits for the backlog to empty too
  }
}
