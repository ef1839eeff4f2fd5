/**
 * `fromMessagePort` behaviours, written once and registered on Node, Deno, Bun and Chromium. Web APIs
 * only: an in-thread `MessageChannel`, streams, and the core.
 * @module
 */
import { fromMessagePort } from "../../adapters/message_port/mod.ts";
import { ContextClient } from "../../src/client/context_client.ts";
import { EraCache } from "../../src/client/era_cache.ts";
import { ContextServer } from "../../src/server/context_server.ts";
import { ClosedError, TransportError } from "../../src/wire/errors.ts";
import { assert, assertEquals, assertStrictEquals } from "./assert.ts";
import type { TestApi } from "./test_api.ts";

const KiB = 1024;

/** One host turn: lets messages posted on a port arrive. */
const turn = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/** Waits host turns until `ready()` holds; a liveness bound in turns, not in time. */
async function untilTurns(ready: () => boolean, what: string): Promise<void> {
  for (let turns = 0; !ready(); turns++) {
    if (turns > 10_000) throw new Error(`Not reached after ${turns} host turns: ${what}`);
    await turn();
  }
}

async function readAll(readable: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  for (const reader = readable.getReader();;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    chunks.push(value);
  }
}

/** Registers every MessagePort behaviour on `api`; `runtime` prefixes the names. */
export function messagePortSuite(api: TestApi, runtime: string): void {
  const name = (behaviour: string): string => `[${runtime}] fromMessagePort ${behaviour}`;

  for (const era of ["modern", "legacy", "auto"] as const) {
    api.test(
      name(`carries ContextClient (${era}) ↔ ContextServer over a MessageChannel: 1,000 requests`),
      async () => {
        const { port1, port2 } = new MessageChannel();
        const server = new ContextServer({
          name: `${runtime}-port`,
          version: "1",
          capabilities: { tools: {} },
        });
        server.handle("echo", (params: { n: number }) => ({ n: params.n }));
        const serving = server.serve(fromMessagePort(port2));
        const client = await ContextClient.connect(fromMessagePort(port1), { era, eraCache: new EraCache() });
        assertStrictEquals(client.era, era === "legacy" ? "legacy" : "modern");
        const results = await Promise.all(
          Array.from({ length: 1_000 }, (_, n) => client.request<{ n: number }>("echo", { n })),
        );
        assertEquals(results.map((r) => r.n), Array.from({ length: 1_000 }, (_, n) => n));
        await client.close();
        assertStrictEquals((await serving).reason, "eof");
      },
    );
  }

  api.test(
    name("holds a writer at the peer's window while the reader stops, then delivers every byte in order"),
    async () => {
      const window = 64 * KiB;
      const { port1, port2 } = new MessageChannel();
      const a = fromMessagePort(port1, { receiveWindowBytes: window });
      const b = fromMessagePort(port2, { receiveWindowBytes: window });
      const writer = a.writable.getWriter();
      const chunks = 64;
      let written = 0;
      const writing = (async () => {
        for (let i = 0; i < chunks; i++) {
          await writer.write(new Uint8Array(16 * KiB).fill(i));
          written++;
        }
        await writer.close();
      })();
      await untilTurns(() => a.bytesInTransit === window, "the window filled");
      const held = written;
      for (let i = 0; i < 50; i++) await turn();
      assertStrictEquals(written, held, "Writes went on while the reader stopped");
      assert(held < chunks, `All ${held} writes completed with the reader stopped`);
      assert(
        b.bufferedInputBytes <= window,
        `${b.bufferedInputBytes} bytes buffered beyond the ${window}-byte window`,
      );
      const received = await readAll(b.readable);
      await writing;
      const size = 16 * KiB;
      const firstBytes: number[] = [];
      let total = 0;
      for (const c of received) {
        for (let at = (size - (total % size)) % size; at < c.byteLength; at += size) firstBytes.push(c[at]!);
        total += c.byteLength;
      }
      assertStrictEquals(total, chunks * size);
      assertEquals(firstBytes, Array.from({ length: chunks }, (_, i) => i), "Chunks out of order");
      assert(a.maxBytesInTransit <= window, `${a.maxBytesInTransit} bytes in transit beyond the window`);
    },
  );

  api.test(
    name("ends the peer's readable on writable close, and the other direction keeps working"),
    async () => {
      const { port1, port2 } = new MessageChannel();
      const a = fromMessagePort(port1);
      const b = fromMessagePort(port2);
      const aw = a.writable.getWriter();
      await aw.write(new TextEncoder().encode("one\n"));
      await aw.close();
      const received = await readAll(b.readable);
      assertStrictEquals(new TextDecoder().decode(received[0]), "one\n");
      const bw = b.writable.getWriter();
      const back = a.readable.getReader();
      await bw.write(new TextEncoder().encode("two\n"));
      assertStrictEquals(new TextDecoder().decode((await back.read()).value), "two\n");
      await bw.close();
      assertStrictEquals((await back.read()).done, true);
      assertStrictEquals(a.closeError(), undefined);
      assertStrictEquals(b.closeError(), undefined);
    },
  );

  api.test(
    name(
      "errors the peer's readable with a ClosedError naming the reason when the writer aborts (never a clean end)",
    ),
    async () => {
      const { port1, port2 } = new MessageChannel();
      const a = fromMessagePort(port1);
      const b = fromMessagePort(port2);
      const reading = b.readable.getReader().read().then(() => undefined, (e: unknown) => e);
      await a.writable.getWriter().abort(new Error("disk on fire"));
      const error = await reading;
      assert(error instanceof ClosedError, `Expected a ClosedError, got ${String(error)}`);
      assert(error.message.includes("disk on fire"), error.message);
      assertStrictEquals(b.closeError(), error);
    },
  );

  api.test(name("refuses a peer that sends beyond its credit with a protocol error"), async () => {
    const { port1, port2 } = new MessageChannel();
    const b = fromMessagePort(port2, { receiveWindowBytes: 16 * KiB });
    const reading = b.readable.getReader().read().then(() => undefined, (e: unknown) => e);
    const tooMuch = new ArrayBuffer(32 * KiB);
    port1.postMessage({ omc: "data", bytes: tooMuch }, [tooMuch]);
    const error = await reading;
    assert(
      error instanceof TransportError && error.code === "protocol",
      `Expected a protocol error, got ${String(error)}`,
    );
    port1.close();
  });
}
