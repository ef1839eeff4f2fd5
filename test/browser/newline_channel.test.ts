/**
 * NewlineChannel in headless Chromium, over an in-memory duplex pair.
 * @module
 */
import { describe, expect, it } from "vitest";
import { NewlineChannel } from "../../src/stream/newline_channel.ts";
import { createDuplexPair } from "../../testing/duplex_pair.ts";

const MiB = 1024 * 1024;
const encoder = new TextEncoder();

describe("NewlineChannel in the browser", () => {
  it("runs in a real browser, not in Node", () => {
    expect(typeof window).toBe("object");
    expect(typeof document).toBe("object");
    expect(navigator.userAgent).toMatch(/Chrome\//);
  });

  it("round-trips messages in order", async () => {
    const [a, b] = createDuplexPair();
    const left = new NewlineChannel(a);
    const right = new NewlineChannel(b);
    await left.send({ jsonrpc: "2.0", id: 1, method: "ping" });
    await left.send({ text: "wörld ✓ 🎉" });
    expect(await right.read()).toEqual({ kind: "line", text: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
    expect(await right.read()).toEqual({ kind: "line", text: '{"text":"wörld ✓ 🎉"}' });
    await right.send({ jsonrpc: "2.0", id: 1, result: {} });
    expect(await left.read()).toEqual({ kind: "line", text: '{"jsonrpc":"2.0","id":1,"result":{}}' });
    await left.close();
    expect(await right.read()).toBeUndefined();
    await right.close();
  });

  it("carries a 3 MiB message through a 64 KiB pipe", async () => {
    const [a, b] = createDuplexPair();
    const left = new NewlineChannel(a);
    const right = new NewlineChannel(b);
    const big = "é".repeat(1.5 * MiB); // 3 MiB of UTF-8
    const sent = left.send({ big });
    const got = await right.read();
    await sent;
    if (got?.kind !== "line") throw new Error(`Expected a line, got ${JSON.stringify(got)?.slice(0, 200)}`);
    const parsed = JSON.parse(got.text) as { big: string };
    expect(parsed.big.length).toBe(big.length);
    expect(parsed.big === big).toBe(true);
    expect(await left.close()).toBe("drained");
    await right.close();
  });

  it("reassembles a line split inside a UTF-8 code point", async () => {
    const [a, b] = createDuplexPair();
    const right = new NewlineChannel(b);
    const bytes = encoder.encode('{"emoji":"🎉"}\n');
    const cut = bytes.indexOf(0xf0) + 2; // two bytes into the four-byte code point
    const writer = a.writable.getWriter();
    await writer.write(bytes.slice(0, cut));
    await writer.write(bytes.slice(cut));
    expect(await right.read()).toEqual({ kind: "line", text: '{"emoji":"🎉"}' });
    await writer.close();
    expect(await right.read()).toBeUndefined();
    await right.close();
  });

  it("reports an oversize line as message_too_large and reads the next line", async () => {
    const [a, b] = createDuplexPair();
    const right = new NewlineChannel(b, { maxMessageBytes: 32 });
    const writer = a.writable.getWriter();
    await writer.write(encoder.encode(JSON.stringify({ pad: "x".repeat(200) }) + "\n" + '{"next":true}\n'));
    const first = await right.read();
    if (first?.kind !== "error") throw new Error(`Expected an error, got ${JSON.stringify(first)}`);
    expect(first.error.code).toBe("message_too_large");
    expect(await right.read()).toEqual({ kind: "line", text: '{"next":true}' });
    await writer.close();
    expect(await right.read()).toBeUndefined();
    await right.close();
  });
});
