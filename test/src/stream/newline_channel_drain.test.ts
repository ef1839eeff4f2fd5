import { afterEach, describe, expect, it, vi } from "vitest";
import { ClosedError, TimeoutError } from "../../../src/wire/errors.ts";
import { NewlineChannel } from "../../../src/stream/newline_channel.ts";
import { createDuplexPair } from "../../../testing/duplex_pair.ts";
import { FakeTimeProvider, flushMicrotasks } from "../../../testing/fake_time_provider.ts";
import { completeBlock, messageOfLineBytes, recordedChannel, track } from "../../helpers/channel.ts";
import { KiB, MiB } from "../../helpers/streams.ts";

const BLOCK = 16 * KiB;

/** A channel on fake time with `blocks` full blocks queued and the first one in flight. */
async function channelWithBlocks(
  blocks: number,
  options: { shutdownTimeout?: number; drainTimeout?: number } = {},
) {
  const time = new FakeTimeProvider();
  const parts = recordedChannel({ timeProvider: time, ...options });
  await parts.channel.send(messageOfLineBytes(blocks * BLOCK));
  await flushMicrotasks();
  expect(parts.output.chunks.length).toBe(1);
  return { time, ...parts };
}

describe("NewlineChannel drain on close", () => {
  it("drains queued output, closes the stream, and leaves no timer behind", async () => {
    const { channel, output, time } = await channelWithBlocks(3);
    const drain = track(channel.closeOutput());
    await completeBlock(output);
    await completeBlock(output);
    expect(await drain.settled()).toBe(false);
    await completeBlock(output);
    expect(await drain.promise).toBe("drained");
    expect(output.closed).toBe(true);
    expect(output.totalBytes).toBe(3 * BLOCK);
    expect(time.pendingTimers).toBe(0);
  });

  it("does not cut off a slow reader that completes a block every second: it finishes after more than 5 s", async () => {
    const { channel, output, time } = await channelWithBlocks(8);
    const started = time.now();
    const drain = track(channel.close());
    for (let i = 0; i < 8; i++) {
      await time.advance(1_000);
      expect(await drain.settled()).toBe(false);
      await completeBlock(output);
    }
    expect(await drain.promise).toBe("drained");
    expect(time.now() - started).toBe(8_000);
    expect(output.totalBytes).toBe(8 * BLOCK);
    expect(output.closed).toBe(true);
  });

  it("resets the no-progress deadline on every block: 4.999 s gaps never trip it", async () => {
    const { channel, output, time } = await channelWithBlocks(2);
    const drain = track(channel.closeOutput());
    await time.advance(4_999);
    await completeBlock(output);
    await time.advance(4_999);
    expect(await drain.settled()).toBe(false);
    await completeBlock(output);
    expect(await drain.promise).toBe("drained");
  });

  it("ends a stalled reader at exactly 5 s with idle_timeout, and writes nothing afterwards", async () => {
    const { channel, output, time } = await channelWithBlocks(4);
    const drain = track(channel.close());
    await time.advance(4_999);
    expect(await drain.settled()).toBe(false);
    await time.advance(1);
    expect(await drain.settled()).toBe(true);
    expect(drain.state.value).toBe("idle_timeout");
    // The stalled write finally completes: nothing more may follow it.
    output.completeNext();
    output.setAutoComplete(true);
    await time.advance(60_000);
    expect(output.chunks.length).toBe(1);
    expect(output.closed).toBe(false);
    expect(output.aborted).toBeInstanceOf(TimeoutError);
    expect((output.aborted as TimeoutError).timeoutMs).toBe(5_000);
    await expect(channel.send(1)).rejects.toBeInstanceOf(ClosedError);
    expect(time.pendingTimers).toBe(0);
  });

  it("ends a reader that trickles a block every 4 s at exactly 10 s with total_timeout", async () => {
    const { channel, output, time } = await channelWithBlocks(100);
    const drain = track(channel.closeOutput());
    await time.advance(4_000);
    await completeBlock(output);
    await time.advance(4_000);
    await completeBlock(output);
    await time.advance(1_999);
    expect(await drain.settled()).toBe(false);
    await time.advance(1);
    expect(await drain.settled()).toBe(true);
    expect(drain.state.value).toBe("total_timeout");
    const written = output.chunks.length;
    expect(written).toBe(3);
    output.completeNext();
    output.setAutoComplete(true);
    await time.advance(60_000);
    expect(output.chunks.length).toBe(written);
    expect((output.aborted as TimeoutError).timeoutMs).toBe(10_000);
    expect(channel.outputClosed).toBe(true);
  });

  it("uses the shutdownTimeout and drainTimeout options, and per-drain overrides", async () => {
    const a = await channelWithBlocks(2, { shutdownTimeout: 100 });
    const drainA = track(a.channel.closeOutput());
    await a.time.advance(99);
    expect(await drainA.settled()).toBe(false);
    await a.time.advance(1);
    expect(drainA.state.value).toBe("idle_timeout");

    const b = await channelWithBlocks(100, { drainTimeout: 2_500 });
    const drainB = track(b.channel.closeOutput());
    for (let i = 0; i < 2; i++) {
      await b.time.advance(1_000);
      await completeBlock(b.output);
    }
    await b.time.advance(499);
    expect(await drainB.settled()).toBe(false);
    await b.time.advance(1);
    expect(drainB.state.value).toBe("total_timeout");

    const c = await channelWithBlocks(2);
    const drainC = track(c.channel.closeOutput({ idleTimeout: 50, totalTimeout: 10 }));
    await c.time.advance(10);
    expect(await drainC.settled()).toBe(true);
    expect(drainC.state.value).toBe("total_timeout");
  });

  it("lets senders that were already waiting go out before the stream closes", async () => {
    const time = new FakeTimeProvider();
    const { channel, output } = recordedChannel({ timeProvider: time });
    await channel.send(messageOfLineBytes(MiB));
    const waiting = track(channel.send({ last: true }));
    const drain = track(channel.closeOutput());
    await expect(channel.send({ late: true })).rejects.toBeInstanceOf(ClosedError);
    output.setAutoComplete(true);
    expect(await drain.promise).toBe("drained");
    expect(waiting.state.done && !waiting.state.failed).toBe(true);
    expect(output.text().endsWith('{"last":true}\n')).toBe(true);
    expect(output.text()).not.toContain("late");
  });

  it("reports failed when a write fails while draining, and writes nothing after it", async () => {
    const { channel, output } = await channelWithBlocks(3);
    const drain = track(channel.closeOutput());
    await completeBlock(output);
    output.fail(new Error("EPIPE"));
    expect(await drain.promise).toBe("failed");
    output.setAutoComplete(true);
    await flushMicrotasks();
    expect(output.chunks.length).toBe(2);
    expect(output.closed).toBe(false);
  });

  it("reports aborted at once when abort() interrupts a drain stuck on a stalled write", async () => {
    const { channel, output, time } = await channelWithBlocks(3);
    const drain = track(channel.closeOutput());
    await channel.abort();
    expect(await drain.settled()).toBe(true);
    expect(drain.state.value).toBe("aborted");
    expect(time.pendingTimers).toBe(0);
    output.setAutoComplete(true);
    await flushMicrotasks();
    expect(output.chunks.length).toBe(1);
  });

  it("returns the same outcome to every caller and resolves closed", async () => {
    const { channel, output } = await channelWithBlocks(1);
    const first = channel.close();
    const second = channel.closeOutput();
    output.setAutoComplete(true);
    expect(await first).toBe("drained");
    expect(await second).toBe("drained");
    await channel.closed;
    await channel[Symbol.asyncDispose]();
  });
});

describe("NewlineChannel standalone disposal on the system clock", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("arms a 10 s total and a 5 s idle deadline on the system clock, re-arms idle per block, and clears them all", async () => {
    const set = new Map<number, number>();
    const cleared: number[] = [];
    let next = 1;
    vi.stubGlobal("setTimeout", (_cb: () => void, ms: number) => {
      set.set(next, ms);
      return next++;
    });
    vi.stubGlobal("clearTimeout", (id: number) => cleared.push(id));
    const { channel, output } = recordedChannel();
    await channel.send(messageOfLineBytes(2 * BLOCK));
    const drain = track(channel.close());
    await flushMicrotasks();
    expect([...set.values()]).toEqual([10_000, 5_000]);
    await completeBlock(output);
    expect([...set.values()]).toEqual([10_000, 5_000, 5_000]);
    await completeBlock(output);
    expect(await drain.promise).toBe("drained");
    expect(cleared.sort()).toEqual([...set.keys()].sort());
  });

  it("rejects a sender waiting for room when the channel is aborted", async () => {
    const time = new FakeTimeProvider();
    const { channel } = recordedChannel({ timeProvider: time });
    await channel.send(messageOfLineBytes(MiB));
    const waiting = track(channel.send({ never: true }));
    expect(await waiting.settled()).toBe(false);
    await channel.abort();
    expect(await waiting.settled()).toBe(true);
    expect(waiting.state.error).toBeInstanceOf(ClosedError);
  });
});

describe("NewlineChannel onReport", () => {
  it("reports a destroy() that throws during teardown instead of swallowing it", async () => {
    const [a] = createDuplexPair();
    const reports: Error[] = [];
    const destroy = (): void => {
      throw new Error("handle already gone");
    };
    const channel = new NewlineChannel({ ...a, destroy }, { onReport: (e) => reports.push(e) });
    await channel.abort();
    expect(reports.map((r) => r.message)).toEqual(["handle already gone"]);
  });
});
