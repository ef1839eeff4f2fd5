/**
 * `outputRoomOf`: what the owner of a {@linkcode NewlineChannel} needs to weigh work that will write
 * (a handler that owes a reply) against the room left in the output queue: the average size of recent
 * lines, and a wake-up at every change of room. Not part of the public surface.
 * @module
 */
import { wakeUp } from "./deferred.ts";
import type { NewlineChannel } from "./newline_channel.ts";

/** One weight in eight for each new line: the average follows a change of reply size within a few dozen lines. */
const NEW_LINE_WEIGHT = 1 / 8;

/** The output side of one channel, as its owner sees it when deciding whether to start more work. */
export class OutputRoom {
  /** Running average of the UTF-8 bytes of the lines queued so far (the first line sets it); 0 before any. */
  averageLineBytes = 0;
  /** Fired at every completed block write, every sender leaving, and teardown: room may have changed. */
  readonly changed: { wait(): Promise<void>; fire(): void } = wakeUp();

  /** A line of `bytes` went into the queue. */
  queued(bytes: number): void {
    const average = this.averageLineBytes;
    this.averageLineBytes = average === 0 ? bytes : average + (bytes - average) * NEW_LINE_WEIGHT;
  }
}

const rooms = new WeakMap<object, OutputRoom>();

/** Called once by each channel with its room. */
export function registerOutputRoom(channel: object, room: OutputRoom): void {
  rooms.set(channel, room);
}

/** The output room of `channel`. */
export function outputRoomOf(channel: NewlineChannel): OutputRoom {
  return rooms.get(channel)!;
}
