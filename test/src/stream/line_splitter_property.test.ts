import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { splitLines } from "../../../src/stream/line_splitter.ts";
import { NewlineChannel } from "../../../src/stream/newline_channel.ts";
import { createDuplexPair } from "../../../testing/duplex_pair.ts";
import { collect, cutAt, readableOf, utf8 } from "../../helpers/streams.ts";

const tricky = fc.string({
  unit: fc.constantFrom(
    "a",
    " ",
    "\r",
    "\n",
    "\r\n",
    "\u2028",
    "\u2029",
    "\uFFFD",
    "😀",
    "𝄞",
    "é",
    "€",
    '"',
    "\\",
    "\u0000",
    "\uD800",
    "\uDFFF",
    "\t",
  ),
  maxLength: 40,
});

/** Arbitrary JSON values: any unicode (astral and lone surrogates too) plus strings full of troublemakers. */
const message = fc.oneof(
  fc.jsonValue({ stringUnit: "binary", maxDepth: 3 }),
  fc.jsonValue({ stringUnit: "grapheme", maxDepth: 3 }),
  tricky,
  fc.dictionary(
    tricky,
    fc.oneof(tricky, fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null)),
  ),
);

const messages = fc.array(message, { minLength: 0, maxLength: 25 });

describe("round trip property", () => {
  it("any messages, encoded and cut at arbitrary byte offsets, come out exactly as they went in", async () => {
    await fc.assert(
      fc.asyncProperty(
        messages,
        fc.array(fc.boolean()),
        fc.array(fc.nat(), { maxLength: 60 }),
        async (msgs, crlf, cutSeeds) => {
          const lines = msgs.map((m) => JSON.stringify(m));
          const bytes = utf8(
            lines.map((l, i) => l + (crlf[i % Math.max(1, crlf.length)] ? "\r\n" : "\n")).join(""),
          );
          const n = bytes.byteLength;
          const cuts = cutSeeds.map((s) => (n > 1 ? 1 + (s % (n - 1)) : 0));
          // Also cut right between every \r and \n, and inside every multi-byte code point.
          for (let i = 1; i < n; i++) {
            if (bytes[i] === 0x0a && bytes[i - 1] === 0x0d && i % 2 === 0) {
              cuts.push(i);
            }
          }
          for (let i = 1; i < n; i++) if ((bytes[i]! & 0xc0) === 0x80 && i % 3 === 0) cuts.push(i);
          const events = await collect(splitLines(readableOf(cutAt(bytes, cuts))));
          expect(events.map((e) => (e.kind === "line" ? e.text : e.error))).toEqual(lines);
          expect(events.map((e) => (e.kind === "line" ? JSON.parse(e.text) : undefined))).toEqual(
            lines.map((l) => JSON.parse(l)),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it("any messages sent through a NewlineChannel arrive exactly as they went in", async () => {
    await fc.assert(
      fc.asyncProperty(
        messages,
        fc.integer({ min: 1, max: 64 }),
        fc.integer({ min: 1, max: 300 }),
        async (msgs, block, queue) => {
          const [a, b] = createDuplexPair({ bufferBytes: 17 });
          const sender = new NewlineChannel(a, { writeBlockBytes: block, maxQueuedOutputBytes: queue });
          const receiver = new NewlineChannel(b);
          const sending = (async () => {
            for (const m of msgs) await sender.send(m);
            return sender.close();
          })();
          const got: string[] = [];
          for await (const event of receiver) {
            if (event.kind !== "line") throw event.error;
            got.push(event.text);
          }
          expect(await sending).toBe("drained");
          expect(got).toEqual(msgs.map((m) => JSON.stringify(m)));
          expect(got.map((t) => JSON.parse(t))).toEqual(msgs.map((m) => JSON.parse(JSON.stringify(m))));
          await receiver.close();
        },
      ),
      { numRuns: 150 },
    );
  });
});
