import { describe, expect, it, vi } from "vitest";
import { ClosedError, InvalidOptionError, WriteFailedError } from "../../../src/wire/errors.ts";
import { NewlineChannel } from "../../../src/stream/newline_channel.ts";
import { createDuplexPair } from "../../../testing/duplex_pair.ts";
import { flushMicrotasks } from "../../../testing/fake_time_provider.ts";
import {
  completeBlock,
  completeBlocks,
  messageOfLineBytes,
  recordedChannel,
  track,
} from "../../helpers/channel.ts";
import { KiB, MiB, utf8 } from "../../helpers/streams.ts";

const BLOCK = 16 * KiB;

function spyMessage(value: unknown = "spy") {
  const toJSON = vi.fn(() => value);
  return { message: { toJSON }, toJSON };
}

describe("NewlineChannel output queue bound (1 MiB)", () => {
  it("accepts a message of 1 MiB - 1 bytes into an empty queue without waiting", async () => {
    const { channel, output } = recordedChannel();
    const sent = track(channel.send(messageOfLineBytes(MiB - 1)));
    expect(await sent.settled()).toBe(true);
    expect(sent.state.failed).toBe(false);
    expect(output.chunks.length).toBe(1); // only the first block has started; none completed
    expect(channel.queuedOutputBytes).toBe(MiB - 1);
    expect(channel.outputFull).toBe(false);
  });

  it("accepts a message of exactly 1 MiB, then is full", async () => {
    const { channel } = recordedChannel();
    expect(await track(channel.send(messageOfLineBytes(MiB))).settled()).toBe(true);
    expect(channel.queuedOutputBytes).toBe(MiB);
    expect(channel.outputFull).toBe(true);
  });

  it("takes a 2-byte message into a queue holding 1 MiB - 2 at once, not into one holding 1 MiB - 1", async () => {
    const a = recordedChannel();
    await a.channel.send(messageOfLineBytes(MiB - 2));
    expect(await track(a.channel.send(0)).settled()).toBe(true);
    expect(a.channel.queuedOutputBytes).toBe(MiB);

    const b = recordedChannel();
    await b.channel.send(messageOfLineBytes(MiB - 1));
    const second = track(b.channel.send(0));
    expect(await second.settled()).toBe(false);
    await completeBlock(b.output);
    expect(await second.settled()).toBe(true);
  });

  it("accepts a 3 MiB message into an empty queue at once", async () => {
    const { channel, output } = recordedChannel();
    expect(await track(channel.send(messageOfLineBytes(3 * MiB))).settled()).toBe(true);
    expect(channel.queuedOutputBytes).toBe(3 * MiB);
    expect(output.chunks.length).toBe(1);
  });

  it("makes a second message wait behind a 3 MiB one until the queue is below 1 MiB, and not longer", async () => {
    const { channel, output } = recordedChannel();
    await channel.send(messageOfLineBytes(3 * MiB));
    const { message, toJSON } = spyMessage();
    const second = track(channel.send(message));
    // 3 MiB = 192 blocks. After 128 blocks exactly 1 MiB is queued: still no room.
    await completeBlocks(output, 128);
    expect(channel.queuedOutputBytes).toBe(MiB);
    expect(await second.settled()).toBe(false);
    expect(toJSON).not.toHaveBeenCalled();
    await completeBlock(output);
    expect(await second.settled()).toBe(true);
    expect(toJSON).toHaveBeenCalledTimes(1);
    expect(channel.queuedOutputBytes).toBe(MiB - BLOCK + '"spy"\n'.length);
  });

  it("lets a second larger-than-limit message in only once the queue is empty", async () => {
    const { channel, output } = recordedChannel();
    await channel.send(messageOfLineBytes(3 * MiB));
    const second = track(channel.send(messageOfLineBytes(2 * MiB, "y")));
    await completeBlocks(output, 191);
    expect(await second.settled()).toBe(false);
    await completeBlock(output);
    expect(await second.settled()).toBe(true);
    expect(channel.queuedOutputBytes).toBe(2 * MiB);
  });

  it("does not call JSON.stringify for a writer waiting on a full queue", async () => {
    const { channel, output } = recordedChannel();
    await channel.send(messageOfLineBytes(MiB));
    const { message, toJSON } = spyMessage({ ok: true });
    const waiting = track(channel.send(message));
    expect(await waiting.settled()).toBe(false);
    expect(toJSON).not.toHaveBeenCalled();
    expect(channel.outputFull).toBe(true);
    await completeBlock(output);
    expect(await waiting.settled()).toBe(true);
    expect(toJSON).toHaveBeenCalledTimes(1);
  });

  it("serves senders in order (FIFO), also when they waited", async () => {
    const { channel, output } = recordedChannel({}, { autoComplete: true });
    const sends = [
      channel.send(messageOfLineBytes(MiB)),
      ...Array.from({ length: 20 }, (_, i) => channel.send({ i })),
    ];
    await Promise.all(sends);
    await channel.close();
    const lines = output.text().split("\n").filter(Boolean).slice(1);
    expect(lines).toEqual(Array.from({ length: 20 }, (_, i) => JSON.stringify({ i })));
  });

  it("waitForOutputRoom resolves once a sender would not wait", async () => {
    const { channel, output } = recordedChannel();
    await channel.send(messageOfLineBytes(MiB + BLOCK));
    const room = track(channel.waitForOutputRoom());
    await completeBlock(output);
    expect(await room.settled()).toBe(false);
    await completeBlock(output);
    expect(await room.settled()).toBe(true);
  });

  it("counts queued bytes in UTF-8 bytes, not UTF-16 code units", async () => {
    const { channel } = recordedChannel();
    await channel.send("é€😀");
    expect(channel.queuedOutputBytes).toBe(utf8('"é€😀"\n').byteLength);
  });
});

describe("NewlineChannel write blocks (16 KiB)", () => {
  it("writes blocks of at most 16 KiB, cutting a large message into full blocks", async () => {
    const { channel, output } = recordedChannel({}, { autoComplete: true });
    await channel.send(messageOfLineBytes(40 * KiB));
    await channel.close();
    expect(output.sizes).toEqual([BLOCK, BLOCK, 40 * KiB - 2 * BLOCK]);
  });

  it("gathers messages queued while a write runs into full 16 KiB blocks, never more", async () => {
    const { channel, output } = recordedChannel();
    await channel.send(messageOfLineBytes(40 * KiB));
    await channel.send(messageOfLineBytes(BLOCK, "a"));
    await channel.send(messageOfLineBytes(BLOCK + 1, "b"));
    for (let i = 0; i < 100; i++) await channel.send(i);
    output.setAutoComplete(true);
    await channel.close();
    const small = Array.from({ length: 100 }, (_, i) => `${i}\n`).join("");
    const total = 40 * KiB + BLOCK + BLOCK + 1 + small.length;
    expect(output.totalBytes).toBe(total);
    expect(output.sizes).toEqual([...Array(Math.floor(total / BLOCK)).fill(BLOCK), total % BLOCK]);
    const lines = output.text().split("\n");
    expect(lines.slice(3, -1)).toEqual(Array.from({ length: 100 }, (_, i) => String(i)));
  });

  it("writes a lone small message at once, without waiting for company", async () => {
    const { channel, output } = recordedChannel();
    await channel.send({ ping: 1 });
    expect(output.sizes).toEqual(['{"ping":1}\n'.length]);
  });

  it("honours a custom writeBlockBytes", async () => {
    const { channel, output } = recordedChannel({ writeBlockBytes: 10 }, { autoComplete: true });
    await channel.send(messageOfLineBytes(25));
    await channel.close();
    expect(output.sizes).toEqual([10, 10, 5]);
  });

  it("counts each completed block write", async () => {
    const { channel, output } = recordedChannel();
    await channel.send(messageOfLineBytes(3 * BLOCK));
    await completeBlocks(output, 2);
    expect(channel.blocksWritten).toBe(2);
  });
});

describe("NewlineChannel write failure", () => {
  it("writes nothing after a failed write and rejects later sends with WriteFailedError", async () => {
    const { channel, output } = recordedChannel();
    await channel.send(messageOfLineBytes(3 * BLOCK));
    const queued = track(channel.send({ queued: 1 }));
    await flushMicrotasks();
    expect(output.chunks.length).toBe(1);
    const cause = new Error("EPIPE");
    output.fail(cause);
    await flushMicrotasks();
    await flushMicrotasks();
    expect(output.chunks.length).toBe(1);
    expect(channel.failure).toBeInstanceOf(WriteFailedError);
    expect(channel.failure?.cause).toBe(cause);
    expect(channel.outputClosed).toBe(true);
    await expect(channel.send({ later: 1 })).rejects.toBeInstanceOf(WriteFailedError);
    await queued.settled();
    expect(output.chunks.length).toBe(1);
    expect(await channel.close()).toBe("failed");
    expect(output.chunks.length).toBe(1);
  });

  it("rejects a sender that was waiting for room when a write fails", async () => {
    const { channel, output } = recordedChannel();
    await channel.send(messageOfLineBytes(MiB));
    const waiting = track(channel.send({ waiting: true }));
    expect(await waiting.settled()).toBe(false);
    output.fail(new Error("broken pipe"));
    expect(await waiting.settled()).toBe(true);
    expect(waiting.state.error).toBeInstanceOf(WriteFailedError);
    expect(output.chunks.length).toBe(1);
  });

  it("fails when the underlying stream errors on its own", async () => {
    const { channel, output } = recordedChannel();
    output.fail(new Error("gone"));
    await channel.send({ a: 1 }).catch(() => {});
    await flushMicrotasks();
    await expect(channel.send({ b: 2 })).rejects.toBeInstanceOf(WriteFailedError);
    expect(output.chunks.length).toBe(1);
  });
});

describe("NewlineChannel send", () => {
  it("rejects a value JSON cannot represent and writes nothing", async () => {
    const { channel, output } = recordedChannel({}, { autoComplete: true });
    await expect(channel.send(undefined)).rejects.toBeInstanceOf(TypeError);
    await expect(channel.send(() => 1)).rejects.toBeInstanceOf(TypeError);
    await expect(channel.send(Symbol("s"))).rejects.toBeInstanceOf(TypeError);
    await expect(channel.send({ n: 1n })).rejects.toBeInstanceOf(TypeError);
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    await expect(channel.send(circular)).rejects.toBeInstanceOf(TypeError);
    await channel.send({ fine: true });
    await channel.close();
    expect(output.text()).toBe('{"fine":true}\n');
  });

  it("rejects with the signal's reason when aborted while waiting, and lets the next sender go", async () => {
    const { channel, output } = recordedChannel();
    await channel.send(messageOfLineBytes(MiB));
    const controller = new AbortController();
    const { message, toJSON } = spyMessage("aborted");
    const aborted = track(channel.send(message, controller.signal));
    const next = track(channel.send("next"));
    expect(await aborted.settled()).toBe(false);
    const reason = new Error("stop");
    controller.abort(reason);
    expect(await aborted.settled()).toBe(true);
    expect(aborted.state.error).toBe(reason);
    expect(toJSON).not.toHaveBeenCalled();
    output.setAutoComplete(true);
    await next.promise;
    await channel.close();
    expect(output.text().endsWith('"next"\n')).toBe(true);
    expect(output.text()).not.toContain("aborted");
  });

  it("sends a Uint8Array as the JSON object it is, also after waiting for room", async () => {
    const { channel, output } = recordedChannel();
    await channel.send(messageOfLineBytes(MiB));
    const waiting = channel.send(new Uint8Array([1, 2]));
    output.setAutoComplete(true);
    await waiting;
    await channel.close();
    expect(output.text().endsWith('{"0":1,"1":2}\n')).toBe(true);
  });

  it("rejects at once with an already aborted signal", async () => {
    const { channel } = recordedChannel();
    await expect(channel.send(1, AbortSignal.abort(new Error("no")))).rejects.toThrow("no");
  });

  it("rejects sends after close with ClosedError", async () => {
    const { channel } = recordedChannel({}, { autoComplete: true });
    await channel.close();
    await expect(channel.send(1)).rejects.toBeInstanceOf(ClosedError);
  });

  it("writes nothing queued after abort()", async () => {
    const { channel, output } = recordedChannel();
    await channel.send(messageOfLineBytes(3 * BLOCK));
    await channel.abort();
    output.setAutoComplete(true);
    await flushMicrotasks();
    expect(output.chunks.length).toBe(1);
    await expect(channel.send(1)).rejects.toBeInstanceOf(ClosedError);
    expect(await channel.closeOutput()).toBe("aborted");
  });
});

describe("NewlineChannel input", () => {
  it("reads lines from the peer and undefined at end of input", async () => {
    const [a, b] = createDuplexPair();
    const left = new NewlineChannel(a);
    const right = new NewlineChannel(b);
    await left.send({ hello: "wörld" });
    await left.send([1, 2]);
    expect(await right.read()).toEqual({ kind: "line", text: '{"hello":"wörld"}', bytes: 18 });
    expect(await right.read()).toEqual({ kind: "line", text: "[1,2]", bytes: 5 });
    expect(await left.close()).toBe("drained");
    expect(await right.read()).toBeUndefined();
    await right.close();
  });

  it("carries a 3 MiB message between two channels", async () => {
    const [a, b] = createDuplexPair();
    const left = new NewlineChannel(a);
    const right = new NewlineChannel(b);
    const big = messageOfLineBytes(3 * MiB);
    const sending = left.send(big);
    const got = await right.read();
    await sending;
    expect(got).toEqual({
      kind: "line",
      text: JSON.stringify(big),
      bytes: new TextEncoder().encode(JSON.stringify(big)).byteLength,
    });
    await left.close();
    await right.close();
  });

  it("reports an oversize input line and reads the next one", async () => {
    const { channel, input } = recordedChannel({ maxMessageBytes: 8 });
    input.push(utf8("123456789\n[1]\n"));
    expect((await channel.read())?.kind).toBe("error");
    expect(await channel.read()).toEqual({ kind: "line", text: "[1]", bytes: 3 });
  });
});

describe("NewlineChannel options", () => {
  const bad = [-1, Number.NaN, "1", null];
  for (
    const name of [
      "maxQueuedOutputBytes",
      "writeBlockBytes",
      "maxMessageBytes",
      "shutdownTimeout",
      "drainTimeout",
    ] as const
  ) {
    for (const value of bad) {
      it(`rejects ${name}: ${String(value)} with InvalidOptionError`, () => {
        expect(() => recordedChannel({ [name]: value as number })).toThrow(InvalidOptionError);
      });
    }
  }

  for (const name of ["maxQueuedOutputBytes", "writeBlockBytes", "maxMessageBytes"] as const) {
    it(`rejects ${name}: 0 and 1.5`, () => {
      expect(() => recordedChannel({ [name]: 0 })).toThrow(InvalidOptionError);
      expect(() => recordedChannel({ [name]: 1.5 })).toThrow(InvalidOptionError);
    });
  }

  it("names the option in the error message", () => {
    expect(() => recordedChannel({ shutdownTimeout: -5 })).toThrow(/shutdownTimeout/);
  });

  it("rejects bad drain deadlines", async () => {
    const { channel } = recordedChannel();
    await expect(channel.closeOutput({ idleTimeout: -1 })).rejects.toBeInstanceOf(InvalidOptionError);
    await expect(channel.close({ totalTimeout: Number.NaN })).rejects.toBeInstanceOf(InvalidOptionError);
  });

  it("exposes the defaults", () => {
    const { channel } = recordedChannel();
    expect(channel.maxQueuedOutputBytes).toBe(MiB);
    expect(channel.writeBlockBytes).toBe(BLOCK);
    expect(channel.maxMessageBytes).toBe(16 * MiB);
  });
});

describe("NewlineChannel room waiters", () => {
  it("wakes waitForOutputRoom when a sender that held the turn leaves, even with no block written", async () => {
    const { RecordingWritable } = await import("../../../testing/recording_writable.ts");
    const sink = new RecordingWritable({ autoComplete: false });
    const channel = new NewlineChannel({ readable: new ReadableStream(), writable: sink.writable }, {
      maxQueuedOutputBytes: 100,
    });
    await channel.send({ fill: "x".repeat(40) }); // in flight, queue has room left
    const controller = new AbortController();
    const blocked = channel.send({ big: "y".repeat(200) }, controller.signal); // waits: does not fit
    expect(channel.outputFull).toBe(true);
    let woke = false;
    const waiting = channel.waitForOutputRoom().then(() => (woke = true));
    controller.abort(new Error("gave up"));
    await expect(blocked).rejects.toThrow("gave up");
    await waiting;
    expect(woke).toBe(true);
    expect(channel.outputFull).toBe(false);
    expect(sink.chunks).toHaveLength(1); // no block completed meanwhile
  });
});
