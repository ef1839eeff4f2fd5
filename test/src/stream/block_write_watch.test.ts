import { describe, expect, it } from "vitest";
import { watchBlockWrites } from "../../../src/stream/newline_channel.ts";
import { flushMicrotasks } from "../../../testing/fake_time_provider.ts";
import { recordedChannel } from "../../helpers/channel.ts";

describe("watchBlockWrites", () => {
  it("tells of each completed block write once it completes, not when it starts", async () => {
    const { channel, output } = recordedChannel();
    let progress = 0;
    watchBlockWrites(channel, { progress: () => progress++, failed: () => {} });
    await channel.send({ a: 1 });
    await flushMicrotasks();
    expect(output.inFlight).toBe(true);
    expect(progress).toBe(0);
    output.completeNext();
    await flushMicrotasks();
    expect(progress).toBe(1);
  });

  it("tells of a failed block write with its cause, after output is marked failed", async () => {
    const { channel, output } = recordedChannel();
    const seen: Array<[unknown, unknown]> = [];
    watchBlockWrites(channel, {
      progress: () => {},
      failed: (cause) => seen.push([cause, channel.failure?.cause]),
    });
    await channel.send({ a: 1 });
    const epipe = new Error("EPIPE");
    output.fail(epipe);
    await flushMicrotasks();
    await expect(channel.send({ b: 2 })).rejects.toThrow();
    await flushMicrotasks();
    expect(seen).toEqual([[epipe, epipe]]);
  });

  it("is not told when the stream errors without a write: the channel fails, the owner sees it at its next send", async () => {
    let fail!: (cause: unknown) => void;
    const writable = new WritableStream<Uint8Array>({
      start: (controller) => void (fail = (cause) => controller.error(cause)),
    });
    const { NewlineChannel } = await import("../../../src/stream/newline_channel.ts");
    const channel = new NewlineChannel({ readable: new ReadableStream(), writable });
    const causes: unknown[] = [];
    watchBlockWrites(channel, { progress: () => {}, failed: (cause) => causes.push(cause) });
    fail("gone");
    await flushMicrotasks();
    expect(causes).toEqual([]);
    expect(channel.outputClosed).toBe(true);
    await expect(channel.send({ a: 1 })).rejects.toThrow();
  });

  it("hears nothing from a channel it does not watch", async () => {
    const watched = recordedChannel({}, { autoComplete: true });
    const other = recordedChannel({}, { autoComplete: true });
    let progress = 0;
    watchBlockWrites(watched.channel, { progress: () => progress++, failed: () => {} });
    await other.channel.send({ a: 1 });
    await flushMicrotasks();
    expect(progress).toBe(0);
    await watched.channel.send({ a: 1 });
    await flushMicrotasks();
    expect(progress).toBe(1);
  });
});
