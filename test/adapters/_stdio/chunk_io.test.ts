import { PassThrough, Writable } from "node:stream";
import { describe, expect, test } from "vitest";
import { chunkReaderOf, type ChunkReadResult, chunkWriterOf } from "../../../adapters/_stdio/chunk_io.ts";
import { nodeChunkReader, nodeChunkWriter } from "../../../adapters/node/_node_streams.ts";
import { createProcessConnection } from "../../../adapters/_process/process_connection.ts";
import type { ExitStatus } from "../../../adapters/_process/shutdown_process.ts";
import { ClosedError, ReadFailedError, WriteFailedError } from "../../../src/wire/errors.ts";
import { FakeTimeProvider, flushMicrotasks } from "../../../testing/fake_time_provider.ts";

const encoder = new TextEncoder();
const text = (bytes: Uint8Array | undefined): string => new TextDecoder().decode(bytes);

describe("nodeChunkReader", () => {
  test("reads what the stream holds, waits for more, then reports the end", async () => {
    const source = new PassThrough();
    const reader = nodeChunkReader(source);
    source.write("a");
    expect(text((await reader.read()).value)).toBe("a");
    let second: ChunkReadResult | undefined;
    const waiting = reader.read().then((r) => (second = r));
    await flushMicrotasks();
    expect(second).toBeUndefined();
    source.write("b");
    await waiting;
    expect(text(second!.value)).toBe("b");
    source.end();
    expect((await reader.read()).done).toBe(true);
  });

  test("a stream error rejects the read with ReadFailedError carrying the cause, never an end", async () => {
    const source = new PassThrough();
    const reader = nodeChunkReader(source);
    const read = reader.read();
    const cause = new Error("EIO");
    source.destroy(cause);
    const error = await read.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReadFailedError);
    expect((error as ReadFailedError).cause).toBe(cause);
  });
});

describe("nodeChunkWriter", () => {
  test("a write resolves once Node handed its bytes on, in order", async () => {
    const seen: string[] = [];
    const writer = nodeChunkWriter(
      new Writable({ write: (chunk, _e, callback) => (seen.push(String(chunk)), callback()) }),
    );
    await writer.write(encoder.encode("a"));
    await writer.write(encoder.encode("b"));
    expect(seen).toEqual(["a", "b"]);
  });

  test("a failed write rejects with WriteFailedError carrying the cause; a closed stream with ClosedError", async () => {
    const epipe = new Error("EPIPE");
    const failing = new Writable({ write: (_chunk, _e, callback) => callback(epipe) });
    failing.on("error", () => {});
    const error = await nodeChunkWriter(failing).write(encoder.encode("x")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WriteFailedError);
    expect((error as WriteFailedError).cause).toBe(epipe);
    const held = new Writable({ write: () => {} });
    const write = nodeChunkWriter(held).write(encoder.encode("y"));
    held.destroy();
    await expect(write).rejects.toBeInstanceOf(ClosedError);
  });
});

describe("chunkReaderOf / chunkWriterOf", () => {
  test("a web stream is read and written through its own reader and writer; a bare one is used as is", async () => {
    const bare = nodeChunkReader(new PassThrough());
    expect(chunkReaderOf(bare)).toBe(bare);
    const web = chunkReaderOf(
      new ReadableStream<Uint8Array>({ start: (c) => (c.enqueue(encoder.encode("w")), c.close()) }),
    );
    expect(text((await web.read()).value)).toBe("w");
    const written: string[] = [];
    const writer = chunkWriterOf(
      new WritableStream<Uint8Array>({ write: (chunk) => void written.push(text(chunk)) }),
    );
    await writer.write(encoder.encode("v"));
    expect(written).toEqual(["v"]);
    const bareWriter = nodeChunkWriter(new PassThrough());
    expect(chunkWriterOf(bareWriter)).toBe(bareWriter);
  });
});

describe("createProcessConnection over bare chunk handles (one web stream each way)", () => {
  const spawned = () => {
    let exit!: (status: ExitStatus) => void;
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const handles = {
      pid: 7,
      stdin: nodeChunkWriter(stdin),
      stdout: nodeChunkReader(stdout),
      exited: new Promise<ExitStatus>((resolve) => (exit = resolve)),
      signal: () => true,
    };
    return { handles, stdin, stdout, exit };
  };

  test("bytes pass both ways; input ends only once the exit status is known, with a typed closeError", async () => {
    const time = new FakeTimeProvider();
    const p = spawned();
    const connection = createProcessConnection(p.handles, { timeProvider: time });
    await connection.writable.getWriter().write(encoder.encode("ping\n"));
    expect(String(p.stdin.read())).toBe("ping\n");
    const reader = connection.readable.getReader();
    p.stdout.write("pong\n");
    expect(text((await reader.read()).value)).toBe("pong\n");
    p.stdout.end();
    let ended = false;
    const end = reader.read().then((r) => (ended = r.done));
    await flushMicrotasks();
    expect(ended).toBe(false);
    p.exit({ exitCode: 3, signal: null });
    await end;
    expect(ended).toBe(true);
    expect(connection.closeError()).toMatchObject({ exitCode: 3 });
  });

  test("a write held by a full pipe rejects with ClosedError when the process exits", async () => {
    const time = new FakeTimeProvider();
    const p = spawned();
    const full = new Writable({ write: () => {} });
    const connection = createProcessConnection({ ...p.handles, stdin: nodeChunkWriter(full) }, {
      timeProvider: time,
    });
    const write = connection.writable.getWriter().write(encoder.encode("x\n"));
    await flushMicrotasks();
    p.exit({ exitCode: 0, signal: null });
    await expect(write).rejects.toBeInstanceOf(ClosedError);
  });

  test("a failed stdout read errors the readable with ReadFailedError, never a clean end", async () => {
    const time = new FakeTimeProvider();
    const p = spawned();
    const connection = createProcessConnection(p.handles, { timeProvider: time });
    const read = connection.readable.getReader().read();
    p.stdout.destroy(new Error("EIO"));
    await expect(read).rejects.toBeInstanceOf(ReadFailedError);
  });
});
