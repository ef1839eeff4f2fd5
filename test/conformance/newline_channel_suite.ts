/**
 * `NewlineChannel` on a runtime's own web streams, over an in-memory duplex pair: written once and
 * registered on Deno, Bun and Chromium (Node runs the full unit suite in test/src).
 * @module
 */
import { NewlineChannel } from "../../src/stream/newline_channel.ts";
import { createDuplexPair } from "../../testing/duplex_pair.ts";
import { assert, assertEquals, assertStrictEquals } from "./assert.ts";
import type { TestApi } from "./test_api.ts";

/** Registers the channel behaviours on `api`; `runtime` prefixes the names. */
export function newlineChannelSuite(api: TestApi, runtime: string): void {
  const name = (behaviour: string): string => `[${runtime}] NewlineChannel ${behaviour}`;
  const MiB = 1024 * 1024;
  const encoder = new TextEncoder();

  api.test(name("round-trips messages in order"), async () => {
    const [a, b] = createDuplexPair();
    const left = new NewlineChannel(a);
    const right = new NewlineChannel(b);
    await left.send({ jsonrpc: "2.0", id: 1, method: "ping" });
    await left.send({ text: "wörld ✓ 🎉" });
    assertEquals(await right.read(), {
      kind: "line",
      text: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      bytes: 40,
    });
    assertEquals(await right.read(), { kind: "line", text: '{"text":"wörld ✓ 🎉"}', bytes: 26 });
    await right.send({ jsonrpc: "2.0", id: 1, result: {} });
    assertEquals(await left.read(), {
      kind: "line",
      text: '{"jsonrpc":"2.0","id":1,"result":{}}',
      bytes: 36,
    });
    await left.close();
    assertStrictEquals(await right.read(), undefined);
    await right.close();
  });

  api.test(name("carries a 3 MiB message through a 64 KiB pipe"), async () => {
    const [a, b] = createDuplexPair();
    const left = new NewlineChannel(a);
    const right = new NewlineChannel(b);
    const big = "é".repeat(1.5 * MiB); // 3 MiB of UTF-8
    const sent = left.send({ big });
    const got = await right.read();
    await sent;
    assert(got?.kind === "line", `Expected a line, got ${got?.kind}`);
    const parsed = JSON.parse(got.text) as { big: string };
    assertStrictEquals(parsed.big.length, big.length);
    assertStrictEquals(parsed.big, big);
    assertStrictEquals(await left.close(), "drained");
    await right.close();
  });

  api.test(
    name("writes long texts encoded block by block exactly as JSON.stringify and TextEncoder would"),
    async () => {
      const [a, b] = createDuplexPair();
      // An odd block size, so code points and escapes are cut at every kind of place.
      const left = new NewlineChannel(a, { writeBlockBytes: 1001 });
      const right = new NewlineChannel(b);
      const tricky = 'a "q" \\ \n \u0001 é€😀 \ud83d lone \ude00 ';
      const messages = [
        { text: tricky.repeat(2_600) }, // about 78,000 UTF-16 units: encoded block by block
        { id: 1, result: { content: [{ type: "text", text: tricky.repeat(9_000) }] } }, // a long string: escaped piece by piece
      ];
      for (const message of messages) {
        const sent = left.send(message);
        const got = await right.read();
        await sent;
        assert(got?.kind === "line", `Expected a line, got ${got?.kind}`);
        const expected = JSON.stringify(message);
        assertStrictEquals(got.text, expected);
        assertStrictEquals(got.bytes, encoder.encode(expected).byteLength);
      }
      assertStrictEquals(await left.close(), "drained");
      await right.close();
    },
  );

  api.test(name("reassembles a line split inside a UTF-8 code point"), async () => {
    const [a, b] = createDuplexPair();
    const right = new NewlineChannel(b);
    const bytes = encoder.encode('{"emoji":"🎉"}\n');
    const cut = bytes.indexOf(0xf0) + 2; // two bytes into the four-byte code point
    const writer = a.writable.getWriter();
    await writer.write(bytes.slice(0, cut));
    await writer.write(bytes.slice(cut));
    assertEquals(await right.read(), { kind: "line", text: '{"emoji":"🎉"}', bytes: 16 });
    await writer.close();
    assertStrictEquals(await right.read(), undefined);
    await right.close();
  });

  api.test(name("reports an oversize line as message_too_large and reads the next line"), async () => {
    const [a, b] = createDuplexPair();
    const right = new NewlineChannel(b, { maxMessageBytes: 32 });
    const writer = a.writable.getWriter();
    await writer.write(encoder.encode(JSON.stringify({ pad: "x".repeat(200) }) + "\n" + '{"next":true}\n'));
    const first = await right.read();
    assert(first?.kind === "error", `Expected an error, got ${JSON.stringify(first)}`);
    assertStrictEquals(first.error.code, "message_too_large");
    assertEquals(await right.read(), { kind: "line", text: '{"next":true}', bytes: 13 });
    await writer.close();
    assertStrictEquals(await right.read(), undefined);
    await right.close();
  });
}
