import { describe, expect, it } from "vitest";
import { LongStreams } from "../../../../src/http/server/long_streams.ts";
import { SseStream } from "../../../../src/http/server/sse/sse_stream.ts";
import { deferred } from "../../../../src/stream/deferred.ts";
import { flushMicrotasks } from "../../../../testing/fake_time_provider.ts";

describe("LongStreams", () => {
  it("counts an SSE stream until it ends (told by the stream, no promise), and is full at max, not before", async () => {
    const streams = new LongStreams(2);
    const a = new SseStream({ keepAliveInterval: 0 });
    const b = new SseStream({ keepAliveInterval: 0 });
    streams.count(a);
    expect(streams.full).toBe(false);
    streams.count(b);
    expect(streams.size).toBe(2);
    expect(streams.full).toBe(true);
    a.cancel(new Error("client left"));
    expect(streams.size).toBe(1);
    expect(streams.full).toBe(false);
    streams.abortAll(new Error("shutdown"));
    expect(streams.size).toBe(0);
  });

  it("counts a stream without the hook until its closed promise settles", async () => {
    const streams = new LongStreams(1);
    const closed = deferred<void>();
    streams.count({ closed: closed.promise, abort: () => closed.resolve() });
    expect(streams.full).toBe(true);
    streams.abortAll(new Error("shutdown"));
    await flushMicrotasks();
    expect(streams.size).toBe(0);
  });
});
