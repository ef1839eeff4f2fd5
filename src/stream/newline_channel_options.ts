/**
 * The options and outcomes of {@linkcode NewlineChannel}, and the duplex shape it accepts.
 * @module
 */
import type { Duplex } from "./duplex.ts";
import type { TimeProvider } from "./time_provider.ts";

/** Options of {@linkcode NewlineChannel}. Every bound is a real, enforced limit. */
export interface NewlineChannelOptions {
  /**
   * Output bytes queued (UTF-8) before writers wait. A single larger message still enters an empty queue.
   * @default 1_048_576 (1 MiB)
   */
  maxQueuedOutputBytes?: number;
  /**
   * Largest block handed to the stream in one write.
   * @default 16_384 (16 KiB)
   */
  writeBlockBytes?: number;
  /**
   * Longest input line in UTF-8 bytes; a longer one is discarded and reported.
   * @default 16_777_216 (16 MiB)
   */
  maxMessageBytes?: number;
  /**
   * While draining on close: the longest wait for a block write to complete.
   * @default 5000
   */
  shutdownTimeout?: number;
  /**
   * While draining on close: the longest the whole drain may take.
   * @default 10_000
   */
  drainTimeout?: number;
  /**
   * The clock for both drain deadlines.
   * @default the system clock
   */
  timeProvider?: TimeProvider;
  /** Failures nobody awaits: releasing the input or destroying the handles failed. */
  onReport?: (error: Error) => void;
}

/** How a drain of the output ended. */
export type DrainOutcome = "drained" | "idle_timeout" | "total_timeout" | "failed" | "aborted";

/** Deadlines for one drain, overriding the channel's options. */
export interface DrainOptions {
  /**
   * No-progress deadline, reset by every completed block write.
   * @default the channel's `shutdownTimeout`
   */
  idleTimeout?: number;
  /**
   * Total bound of the drain.
   * @default the channel's `drainTimeout`
   */
  totalTimeout?: number;
}

/** A duplex that may also be torn down at once, for a drain that ran out of time. */
export interface DestroyableDuplex extends Duplex {
  /** Releases the underlying handles now, even with a write in flight. */
  destroy?(reason?: unknown): void;
}
