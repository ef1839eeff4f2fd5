/**
 * `outputRoomOf`: what the owner of a `NewlineChannel` needs to weigh work that will write
 * (a handler that owes a reply) against the room left in the output queue: the average size of recent
 * lines, and a wake-up at every change of room. Not part of the public surface.
 * @module
 */
import { wakeUp } from "./deferred.ts";

/**
 * What a room is kept for: a channel with a bounded output queue (`NewlineChannel` is one). Declared
 * here so this module need not import the channel that registers with it.
 */
export interface QueuedOutputChannel {
  /** Bytes queued for output now. */
  readonly queuedOutputBytes: number;
  /** The bound of the output queue, in bytes. */
  readonly maxQueuedOutputBytes: number;
}

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
export function registerOutputRoom(channel: QueuedOutputChannel, room: OutputRoom): void {
  rooms.set(channel, room);
}

/** The output room of `channel`. */
export function outputRoomOf(channel: QueuedOutputChannel): OutputRoom {
  return rooms.get(channel)!;
}
