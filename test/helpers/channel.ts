/**
 * Shared helpers for channel tests: a channel writing into a RecordingWritable, message builders of
 * an exact encoded size, and a way to ask whether a promise has settled without waiting for it.
 */
import { NewlineChannel, type NewlineChannelOptions } from "../../src/stream/newline_channel.ts";
import { flushMicrotasks } from "../../testing/fake_time_provider.ts";
import { RecordingWritable, type RecordingWritableOptions } from "../../testing/recording_writable.ts";
import { manualReadable } from "./streams.ts";

/** A channel whose output is recorded and whose input the test feeds by hand. */
export function recordedChannel(
  options: NewlineChannelOptions = {},
  recording: RecordingWritableOptions = { autoComplete: false },
) {
  const output = new RecordingWritable(recording);
  const input = manualReadable();
  const channel = new NewlineChannel({ readable: input.readable, writable: output.writable }, options);
  return { channel, output, input };
}

/** A JSON string message whose encoded line (quotes and `\n` included) is exactly `bytes` long. */
export function messageOfLineBytes(bytes: number, fill = "x"): string {
  if (bytes < 3) throw new RangeError("A string line needs at least 3 bytes");
  return fill.repeat(bytes - 3);
}

/** Tracks whether a promise has settled; `settled()` lets pending microtasks run first. */
export function track<T>(promise: Promise<T>) {
  const state: { done: boolean; value?: T; error?: unknown; failed: boolean } = {
    done: false,
    failed: false,
  };
  promise.then(
    (value) => Object.assign(state, { done: true, value }),
    (error) => Object.assign(state, { done: true, failed: true, error }),
  );
  return {
    promise,
    state,
    async settled(): Promise<boolean> {
      await flushMicrotasks();
      return state.done;
    },
  };
}

/** Completes the write in flight and lets the channel start the next one. */
export async function completeBlock(output: RecordingWritable): Promise<boolean> {
  const had = output.completeNext();
  await flushMicrotasks();
  return had;
}

/** Completes `n` block writes in turn. */
export async function completeBlocks(output: RecordingWritable, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    if (!(await completeBlock(output))) throw new Error(`No write in flight at block ${i}`);
  }
}
