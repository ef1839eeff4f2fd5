/**
 * Fuzz: arbitrary bytes, chunked arbitrarily, interleaved with well-formed requests, into a
 * ContextServer. The connection never throws, every well-formed request gets exactly one reply,
 * and the output queue never exceeds its bound.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ContextServer } from "../../src/server/context_server.ts";
import { NewlineChannel } from "../../src/stream/newline_channel.ts";
import { createDuplexPair } from "../../testing/duplex_pair.ts";
import { ENVELOPE } from "./target.ts";

const encoder = new TextEncoder();

function goodRequest(n: number): Uint8Array {
  return encoder.encode(
    JSON.stringify({ jsonrpc: "2.0", id: `good-${n}`, method: "echo", params: { n, _meta: ENVELOPE } }) +
      "\n",
  );
}

const segment = fc.oneof(
  { weight: 2, arbitrary: fc.constant<"good">("good") },
  { weight: 3, arbitrary: fc.uint8Array({ maxLength: 300 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 200 }).map((s) => encoder.encode(s)) },
  { weight: 1, arbitrary: fc.json().map((s) => encoder.encode(s)) },
);

describe("ContextServer fuzz", () => {
  it("survives arbitrary bytes chunked arbitrarily and answers every well-formed request exactly once", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(segment, { maxLength: 40 }),
        fc.array(fc.integer({ min: 1, max: 97 }), { minLength: 1, maxLength: 20 }),
        async (segments, cuts) => {
          const parts: Uint8Array[] = [];
          let goods = 0;
          for (const s of segments) {
            // Every segment ends its line, so garbage never merges into the next request.
            parts.push(s === "good" ? goodRequest(goods++) : new Uint8Array([...s, 0x0a]));
          }
          const total = parts.reduce((n, p) => n + p.byteLength, 0);
          const bytes = new Uint8Array(total);
          let at = 0;
          for (const p of parts) (bytes.set(p, at), (at += p.byteLength));

          const [peer, serverSide] = createDuplexPair();
          const maxQueued = 4096;
          const channel = new NewlineChannel(serverSide, { maxQueuedOutputBytes: maxQueued });
          const server = new ContextServer({
            name: "fuzz",
            version: "1",
            capabilities: {},
            unenvelopedRequests: "legacy",
          });
          server.handle("echo", (p) => p);
          const serving = server.serve(channel);
          let peakQueued = 0;
          const writer = peer.writable.getWriter();
          const writing = (async () => {
            let offset = 0;
            for (let i = 0; offset < bytes.byteLength; i++) {
              const size = cuts[i % cuts.length]!;
              peakQueued = Math.max(peakQueued, channel.queuedOutputBytes);
              await writer.write(bytes.subarray(offset, offset + size));
              offset += size;
            }
            await writer.close();
          })();
          let text = "";
          const decoder = new TextDecoder();
          for await (const chunk of peer.readable) {
            peakQueued = Math.max(peakQueued, channel.queuedOutputBytes);
            text += decoder.decode(chunk as Uint8Array, { stream: true });
          }
          await writing;
          const result = await serving;
          expect(result.reason).toBe("eof");
          const replies = text.split("\n").filter(Boolean).map((l) => JSON.parse(l));
          for (let n = 0; n < goods; n++) {
            const mine = replies.filter((r) => r.id === `good-${n}`);
            expect(mine).toHaveLength(1);
            expect(mine[0].result.n).toBe(n);
          }
          expect(replies.every((r) => r.jsonrpc === "2.0" && ("result" in r || "error" in r))).toBe(true);
          // The bound: the queue, or one larger message alone in an empty queue.
          expect(peakQueued).toBeLessThanOrEqual(maxQueued + 2048);
        },
      ),
      { numRuns: 150 },
    );
  });
});
