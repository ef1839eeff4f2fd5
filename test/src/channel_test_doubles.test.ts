import { describe, expect, it } from "vitest";
import { NewlineChannel } from "../../src/stream/newline_channel.ts";
import { createDuplexPair, createPipe } from "../../testing/duplex_pair.ts";
import { flushMicrotasks } from "../../testing/fake_time_provider.ts";
import { RecordingWritable } from "../../testing/recording_writable.ts";
import { track } from "../helpers/channel.ts";
import { collect, concatBytes, readableOf, utf8 } from "../helpers/streams.ts";

describe("createDuplexPair / createPipe", () => {
  it("resolves writer.ready on an idle pipe, so pipeTo into it works", async () => {
    const pipe = createPipe(64);
    const writer = pipe.writable.getWriter();
    expect(await track(writer.ready).settled()).toBe(true);
    writer.releaseLock();
    const source = readableOf([utf8("ab"), utf8("cd"), utf8("ef")]);
    const [piped, got] = await Promise.all([source.pipeTo(pipe.writable), collect(pipe.readable)]);
    expect(piped).toBeUndefined();
    expect(new TextDecoder().decode(concatBytes(got))).toBe("abcdef");
  });

  it("buffers bufferBytes plus the chunk being written, then makes the writer wait", async () => {
    const pipe = createPipe(100);
    const writer = pipe.writable.getWriter();
    const chunk = new Uint8Array(10);
    let accepted = 0;
    for (let i = 0; i < 50; i++) {
      if (!(await track(writer.ready).settled())) break;
      void writer.write(chunk);
      accepted += chunk.byteLength;
    }
    expect(accepted).toBe(110);
    const reader = pipe.readable.getReader();
    await reader.read();
    expect(await track(writer.ready).settled()).toBe(true);
  });

  it("connects a to b and b to a, copying chunks so a writer may reuse its buffer", async () => {
    const [a, b] = createDuplexPair();
    const buffer = utf8("one");
    const wa = a.writable.getWriter();
    await wa.write(buffer);
    buffer.set(utf8("two"));
    await wa.write(buffer);
    await wa.close();
    const wb = b.writable.getWriter();
    await wb.write(utf8("back"));
    await wb.close();
    expect(new TextDecoder().decode(concatBytes(await collect(b.readable)))).toBe("onetwo");
    expect(new TextDecoder().decode(concatBytes(await collect(a.readable)))).toBe("back");
  });
});

describe("createPipe ends as an OS pipe does", () => {
  it("reports a clean drain as drained when the peer read every byte and then closed", async () => {
    const [a, b] = createDuplexPair();
    const server = new NewlineChannel(a);
    const client = new NewlineChannel(b);
    await server.send({ jsonrpc: "2.0", id: 1, result: {} });
    expect(await client.read()).toEqual({
      kind: "line",
      text: '{"jsonrpc":"2.0","id":1,"result":{}}',
      bytes: 36,
    });
    expect(await client.close()).toBe("drained"); // the client goes away first: its input is cancelled
    expect(await server.closeOutput()).toBe("drained");
    expect(server.failure).toBeUndefined();
  });

  it("fails a write after the reader cancelled, and still closes cleanly", async () => {
    const pipe = createPipe(64);
    const writer = pipe.writable.getWriter();
    await pipe.readable.cancel(new Error("reader gone"));
    await expect(writer.write(utf8("x"))).rejects.toThrow("reader gone");
    const other = createPipe(64);
    const w2 = other.writable.getWriter();
    await other.readable.cancel();
    expect(await track(w2.close()).settled()).toBe(true);
  });

  it("fails a write waiting for room when the reader cancels", async () => {
    const pipe = createPipe(4);
    const writer = pipe.writable.getWriter();
    await writer.write(utf8("12345"));
    const waiting = writer.write(utf8("6"));
    expect(await track(waiting).settled()).toBe(false);
    await pipe.readable.cancel();
    await expect(waiting).rejects.toThrow(/reader cancelled/);
  });

  it("errors the reader with the reason when the writer aborts, even with a write waiting for room", async () => {
    const pipe = createPipe(4);
    const writer = pipe.writable.getWriter();
    await writer.write(utf8("12345"));
    const waiting = writer.write(utf8("6"));
    const reason = new Error("torn down");
    await writer.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    const reader = pipe.readable.getReader();
    await expect(reader.read()).rejects.toBe(reason);
  });
});

describe("RecordingWritable", () => {
  it("records chunks as copies and completes writes at once by default", async () => {
    const out = new RecordingWritable();
    const writer = out.writable.getWriter();
    const buffer = utf8("hé");
    await writer.write(buffer);
    buffer.fill(0);
    await writer.write(utf8("!"));
    await writer.close();
    expect(out.sizes).toEqual([3, 1]);
    expect(out.totalBytes).toBe(4);
    expect(out.text()).toBe("hé!");
    expect(out.closed).toBe(true);
  });

  it("keeps a write in flight until completeNext with autoComplete: false", async () => {
    const out = new RecordingWritable({ autoComplete: false });
    const writer = out.writable.getWriter();
    const first = track(writer.write(utf8("a")));
    await out.nextWrite();
    expect(out.inFlight).toBe(true);
    expect(await first.settled()).toBe(false);
    const second = track(writer.write(utf8("b")));
    expect(out.chunks.length).toBe(1);
    expect(out.completeNext()).toBe(true);
    expect(await first.settled()).toBe(true);
    expect(out.chunks.length).toBe(2);
    expect(await second.settled()).toBe(false);
    out.setAutoComplete(true);
    expect(await second.settled()).toBe(true);
    expect(out.completeNext()).toBe(false);
  });

  it("fails the write in flight, or the next one", async () => {
    const out = new RecordingWritable({ autoComplete: false });
    const writer = out.writable.getWriter();
    const first = writer.write(utf8("a"));
    await flushMicrotasks();
    const error = new Error("boom");
    out.fail(error);
    await expect(first).rejects.toBe(error);

    const later = new RecordingWritable();
    const failure = new Error("next");
    later.fail(failure);
    await expect(later.writable.getWriter().write(utf8("x"))).rejects.toBe(failure);
    expect(later.chunks.length).toBe(1);
  });

  it("records an abort reason", async () => {
    const out = new RecordingWritable();
    await out.writable.abort("why");
    expect(out.aborted).toBe("why");
  });
});
