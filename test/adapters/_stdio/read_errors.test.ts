/**
 * A read failure on a runtime's handle is a stream error (`ReadFailedError`), never a clean end of
 * input, on every adapter's `stdio()`; a real end of input still ends the readable cleanly.
 */
import { PassThrough } from "node:stream";
import { describe, expect, test } from "vitest";
import { stdio as bunStdio } from "../../../adapters/bun/mod.ts";
import type { BunLike } from "../../../adapters/bun/_bun_like.ts";
import { stdio as denoStdio } from "../../../adapters/deno/mod.ts";
import type { DenoLike } from "../../../adapters/deno/_deno_like.ts";
import { stdio as nodeStdio } from "../../../adapters/node/mod.ts";
import type { TransportConnection } from "../../../src/rpc/transport.ts";
import { ReadFailedError } from "../../../src/wire/errors.ts";

/** stdin as a web stream that the test ends or fails. */
function webStdin() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const readable = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  return { readable, fail: (error: Error) => controller.error(error), end: () => controller.close() };
}

const adapters: Array<
  [string, () => { connection: TransportConnection; fail(error: Error): void; end(): void }]
> = [
  [
    "node",
    () => {
      const stdin = new PassThrough();
      return {
        connection: nodeStdio({ stdin, stdout: new PassThrough() }),
        fail: (e) => stdin.destroy(e),
        end: () => stdin.end(),
      };
    },
  ],
  [
    "deno",
    () => {
      const stdin = webStdin();
      const deno = {
        stdin: { readable: stdin.readable },
        stdout: { writable: new WritableStream() },
      } as unknown as DenoLike;
      return { connection: denoStdio({ deno }), ...stdin };
    },
  ],
  [
    "bun",
    () => {
      const stdin = webStdin();
      const fileSink = { write: (c: Uint8Array) => c.byteLength, flush: () => 0, end: () => 0 };
      const bun = {
        stdin: { stream: () => stdin.readable },
        stdout: { writer: () => fileSink },
      } as unknown as BunLike;
      return { connection: bunStdio({ bun }), ...stdin };
    },
  ],
];

describe.each(adapters)("stdio() on %s", (_runtime, make) => {
  test("a failed stdin read errors the readable with ReadFailedError carrying the cause", async () => {
    const { connection, fail } = make();
    const reader = connection.readable.getReader();
    const read = reader.read();
    fail(new Error("EIO: input/output error"));
    const error = await read.then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ReadFailedError);
    expect(((error as ReadFailedError).cause as Error).message).toBe("EIO: input/output error");
  });

  test("a clean end of stdin ends the readable without an error", async () => {
    const { connection, end } = make();
    const reader = connection.readable.getReader();
    const read = reader.read();
    end();
    expect(await read).toEqual({ done: true, value: undefined });
  });
});
