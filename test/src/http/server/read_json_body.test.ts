import { describe, expect, it } from "vitest";
import { BodyTooLargeError } from "../../../../src/http/errors.ts";
import { DEFAULT_MAX_BODY_BYTES, readJsonBody } from "../../../../src/http/server/read_json_body.ts";
import { READ_BODY } from "../../../../src/http/server/request_parts.ts";
import {
  InvalidOptionError,
  InvalidUtf8Error,
  MessageTooLargeError,
  ParseError,
  TransportError,
} from "../../../../src/wire/errors.ts";

const encoder = new TextEncoder();

/** A body stream that hands out `chunks` one pull at a time, then `filler` for ever when given; counts pulls and sees cancels. */
function source(chunks: Uint8Array[], filler?: Uint8Array) {
  const stats = { pulls: 0, cancelled: false };
  let at = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        stats.pulls++;
        if (at < chunks.length) controller.enqueue(chunks[at++]!);
        else if (filler) controller.enqueue(filler);
        else controller.close();
      },
      cancel() {
        stats.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, stats };
}

function post(body: BodyInit | null, headers: Record<string, string> = {}): Request {
  return new Request(
    "http://127.0.0.1/mcp",
    { method: "POST", body, headers, duplex: "half" } as RequestInit,
  );
}

describe("readJsonBody", () => {
  it("parses a JSON-RPC request and reports its size", async () => {
    const text = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(await readJsonBody(post(text))).toEqual({
      value: { jsonrpc: "2.0", id: 1, method: "tools/list" },
      batch: false,
      bytes: text.length,
    });
  });

  it("flags a batch array", async () => {
    expect(await readJsonBody(post('[{"jsonrpc":"2.0","method":"a"}]'))).toMatchObject({ batch: true });
    expect(await readJsonBody(post("[]"))).toMatchObject({ batch: true, value: [] });
  });

  it("reassembles a body split inside a UTF-8 code point", async () => {
    const bytes = encoder.encode('{"name":"天気"}');
    const { stream } = source([bytes.subarray(0, 10), bytes.subarray(10, 11), bytes.subarray(11)]);
    expect((await readJsonBody(post(stream))).value).toEqual({ name: "天気" });
  });

  it("ignores a leading UTF-8 BOM", async () => {
    expect((await readJsonBody(post(new Uint8Array([0xef, 0xbb, 0xbf, ...encoder.encode("{}")])))).value)
      .toEqual({});
  });

  describe("the byte cap", () => {
    it("defaults to 4 MiB", () => {
      expect(DEFAULT_MAX_BODY_BYTES).toBe(4 * 1024 * 1024);
    });

    it("accepts a body of exactly maxBodyBytes", async () => {
      const text = `"${"a".repeat(98)}"`;
      expect((await readJsonBody(post(text), { maxBodyBytes: 100 })).bytes).toBe(100);
    });

    it("refuses a body of maxBodyBytes + 1", async () => {
      const text = `"${"a".repeat(99)}"`;
      const error = await readJsonBody(post(text), { maxBodyBytes: 100 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BodyTooLargeError);
      expect(error).toMatchObject({ code: "message_too_large", limitBytes: 100, declaredBytes: undefined });
      expect(error).toBeInstanceOf(MessageTooLargeError);
      expect(error).toBeInstanceOf(TransportError);
      expect((error as Error).message).toBe("The request body exceeds maxBodyBytes (100 bytes)");
    });

    it("accepts a 4 MiB body by default and refuses one byte more", async () => {
      const exact = `"${"a".repeat(DEFAULT_MAX_BODY_BYTES - 2)}"`;
      expect((await readJsonBody(post(exact))).bytes).toBe(DEFAULT_MAX_BODY_BYTES);
      await expect(readJsonBody(post(`${exact} `))).rejects.toBeInstanceOf(BodyTooLargeError);
    });

    it("stops reading an endless body at the first chunk over the cap and cancels it", async () => {
      const { stream, stats } = source([], new Uint8Array(1000).fill(0x20));
      const error = await readJsonBody(post(stream), { maxBodyBytes: 10_000 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BodyTooLargeError);
      expect(stats.pulls).toBeLessThanOrEqual(12);
      expect(stats.cancelled).toBe(true);
    });

    it("refuses at once, reading nothing, when Content-Length declares more than the cap", async () => {
      const { stream, stats } = source([encoder.encode("{}")]);
      const error = await readJsonBody(post(stream, { "content-length": "101" }), { maxBodyBytes: 100 })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BodyTooLargeError);
      expect(error).toMatchObject({ declaredBytes: 101, limitBytes: 100 });
      expect((error as Error).message).toContain("Content-Length 101");
      expect(stats.pulls).toBe(0);
    });

    it("reads a body whose Content-Length equals the cap", async () => {
      const text = `"${"a".repeat(98)}"`;
      expect((await readJsonBody(post(text, { "content-length": "100" }), { maxBodyBytes: 100 })).bytes).toBe(
        100,
      );
    });

    it("still caps the real bytes when Content-Length understates them", async () => {
      const { stream, stats } = source([], new Uint8Array(64).fill(0x20));
      const error = await readJsonBody(post(stream, { "content-length": "2" }), { maxBodyBytes: 1000 }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(BodyTooLargeError);
      expect(stats.pulls).toBeLessThanOrEqual(17);
    });

    it("ignores a Content-Length that is not a plain number and caps the real bytes", async () => {
      expect((await readJsonBody(post("{}", { "content-length": "lots" }), { maxBodyBytes: 100 })).value)
        .toEqual({});
    });

    // A clone()'s body is a tee branch, whose cancel settles only when its twin is cancelled too: a
    // refusal that waited for it never came back (the test timed out).
    it("refuses an over-cap body of a cloned request, and of the request it was cloned from", async () => {
      const text = `"${"a".repeat(99)}"`;
      const original = post(text);
      const clone = original.clone();
      await expect(readJsonBody(clone, { maxBodyBytes: 100 })).rejects.toBeInstanceOf(BodyTooLargeError);
      await expect(readJsonBody(original, { maxBodyBytes: 100 })).rejects.toBeInstanceOf(BodyTooLargeError);
    });

    it("refuses a cloned request whose Content-Length declares more than the cap", async () => {
      const clone = post(`"${"a".repeat(99)}"`, { "content-length": "101" }).clone();
      const error = await readJsonBody(clone, { maxBodyBytes: 100 }).catch((e: unknown) => e);
      expect(error).toMatchObject({ declaredBytes: 101, limitBytes: 100 });
      expect(error).toBeInstanceOf(BodyTooLargeError);
    });

    it("reads a cloned request's body within the cap, and the original's too", async () => {
      const original = post('{"a":1}');
      const clone = original.clone();
      expect((await readJsonBody(clone, { maxBodyBytes: 7 })).value).toEqual({ a: 1 });
      expect((await readJsonBody(original, { maxBodyBytes: 7 })).value).toEqual({ a: 1 });
    });

    it("refuses an invalid cap", async () => {
      await expect(readJsonBody(post("{}"), { maxBodyBytes: 0 })).rejects.toBeInstanceOf(InvalidOptionError);
      await expect(readJsonBody(post("{}"), { maxBodyBytes: 1.5 })).rejects.toBeInstanceOf(
        InvalidOptionError,
      );
    });
  });

  describe("parse failures", () => {
    it("refuses an empty or missing body", async () => {
      const empty = await readJsonBody(post("")).catch((e: unknown) => e);
      expect(empty).toBeInstanceOf(ParseError);
      expect(empty).toMatchObject({ code: "parse", line: "" });
      await expect(readJsonBody(new Request("http://127.0.0.1/mcp", { method: "POST" }))).rejects
        .toBeInstanceOf(ParseError);
    });

    it("refuses bytes that are not UTF-8", async () => {
      const error = await readJsonBody(post(new Uint8Array([0x22, 0xff, 0x22]))).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidUtf8Error);
      expect(error).toMatchObject({ code: "invalid_utf8" });
    });

    it("refuses a body cut inside a code point", async () => {
      const bytes = encoder.encode('"é"');
      await expect(readJsonBody(post(bytes.subarray(0, 2)))).rejects.toBeInstanceOf(InvalidUtf8Error);
    });

    it("reads the next body whole after one cut inside a code point (nothing carries over between bodies)", async () => {
      const bytes = encoder.encode('"é"');
      await expect(readJsonBody(post(bytes.subarray(0, 2)))).rejects.toBeInstanceOf(InvalidUtf8Error);
      await expect(readJsonBody(post(encoder.encode('"ok"')))).resolves.toMatchObject({ value: "ok" });
      await expect(readJsonBody(post(bytes))).resolves.toMatchObject({ value: "é" });
    });

    it("reads a body through the request's READ_BODY method when it has one, and its stream when that method declines", async () => {
      const direct = Object.assign(post("[]"), {
        [READ_BODY]: (limit: number) => Promise.resolve(encoder.encode(`{"limit":${limit}}`)),
      });
      await expect(readJsonBody(direct, { maxBodyBytes: 100 })).resolves.toMatchObject({
        value: { limit: 100 },
        batch: false,
      });
      const declines = Object.assign(post("[]"), { [READ_BODY]: () => undefined });
      await expect(readJsonBody(declines)).resolves.toMatchObject({ value: [], batch: true });
    });

    it("refuses text that is not JSON and quotes its start", async () => {
      const error = await readJsonBody(post("{jsonrpc: 2.0}")).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ParseError);
      expect(error).toMatchObject({ code: "parse", line: "{jsonrpc: 2.0}" });
      expect((error as Error).message).toContain("{jsonrpc: 2.0}");
      expect((error as Error).cause).toBeInstanceOf(SyntaxError);
    });
  });
});
