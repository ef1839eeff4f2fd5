import { describe, expect, it } from "vitest";
import {
  base64UrlDecode,
  base64UrlEncode,
  canonicalJson,
  paramsDigest,
  RequestStateCodec,
} from "../../../../src/server/input/request_state.ts";
import { RequestStateError } from "../../../../src/server/input/request_state_error.ts";
import { InvalidOptionError, JsonRpcError } from "../../../../src/wire/errors.ts";
import { FakeTimeProvider } from "../../../../testing/fake_time_provider.ts";

const KEY = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
const params = { name: "t", arguments: { a: 1, b: [1, 2] } };
const binding = { method: "tools/call", params };

async function rejection(promise: Promise<unknown>): Promise<RequestStateError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(RequestStateError);
    expect(error).toBeInstanceOf(JsonRpcError);
    expect((error as JsonRpcError).code).toBe(-32602);
    return error as RequestStateError;
  }
  throw new Error("expected a rejection");
}

describe("RequestStateCodec", () => {
  it("opens what it sealed, on a retry of the same request with inputResponses, requestState and _meta added", async () => {
    const codec = new RequestStateCodec({ key: KEY });
    const state = await codec.seal({ round: 2, answers: { x: "é" } }, binding);
    expect(state).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    const retry = {
      arguments: { b: [1, 2], a: 1 },
      name: "t",
      inputResponses: { k: {} },
      requestState: state,
      _meta: { progressToken: 1 },
    };
    expect(await codec.open(state, { method: "tools/call", params: retry })).toEqual({
      round: 2,
      answers: { x: "é" },
    });
  });

  it("replicas sharing a key (hex or raw bytes) open each other's state", async () => {
    const bytes = new Uint8Array(32).map((_, i) =>
      [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff][i % 16]
    );
    const a = new RequestStateCodec({ key: KEY });
    const b = new RequestStateCodec({ key: bytes });
    expect(await b.open(await a.seal("p", binding), binding)).toBe("p");
  });

  it("without a key each codec draws its own: another codec answers tampered", async () => {
    const a = new RequestStateCodec();
    const b = new RequestStateCodec();
    const state = await a.seal(1, binding);
    expect(await a.open(state, binding)).toBe(1);
    expect((await rejection(b.open(state, binding))).reason).toBe("tampered");
  });

  it("a modified state is rejected as tampered (suffix, flipped body character, swapped tag)", async () => {
    const codec = new RequestStateCodec({ key: KEY });
    const state = await codec.seal({ admin: false }, binding);
    const other = await codec.seal({ admin: true }, binding);
    const [body, tag] = state.split(".");
    const flipped = body[5] === "A" ? "B" : "A";
    expect(
      (await rejection(codec.open(`${body.slice(0, 5)}${flipped}${body.slice(6)}.${tag}`, binding))).reason,
    ).toBe("tampered");
    expect((await rejection(codec.open(`${other.split(".")[0]}.${tag}`, binding))).reason).toBe("tampered");
    const err = await rejection(codec.open(state + "-TAMPERED", binding));
    expect(["tampered", "malformed"]).toContain(err.reason);
    expect(err.message).toMatch(/^Invalid requestState/);
  });

  it("expires exactly stateTtl (default 10 minutes) after sealing, on the injected clock", async () => {
    const time = new FakeTimeProvider();
    const codec = new RequestStateCodec({ key: KEY, timeProvider: time, epochOrigin: 0 });
    expect(codec.stateTtl).toBe(600_000);
    const state = await codec.seal("x", binding);
    await time.advance(600_000);
    expect(await codec.open(state, binding)).toBe("x");
    await time.advance(1);
    const err = await rejection(codec.open(state, binding));
    expect(err.reason).toBe("expired");
    expect(err.data).toEqual({ reason: "expired" });
    expect(err.message).toMatch(/expired 1 ms ago/);
  });

  it("a shorter stateTtl holds too", async () => {
    const time = new FakeTimeProvider();
    const codec = new RequestStateCodec({ key: KEY, timeProvider: time, stateTtl: 1_000 });
    const state = await codec.seal("x", binding);
    await time.advance(999);
    expect(await codec.open(state, binding)).toBe("x");
    await time.advance(2);
    expect((await rejection(codec.open(state, binding))).reason).toBe("expired");
  });

  it("state sealed for another method, other params or another principal is foreign", async () => {
    const codec = new RequestStateCodec({ key: KEY });
    const state = await codec.seal("x", binding);
    const m = await rejection(codec.open(state, { method: "prompts/get", params }));
    expect(m.reason).toBe("foreign");
    expect(m.message).toContain('"tools/call"');
    const p = await rejection(
      codec.open(state, { method: "tools/call", params: { ...params, name: "other" } }),
    );
    expect(p.reason).toBe("foreign");
    expect(p.message).toMatch(/other params/);
    expect((await rejection(codec.open(state, { ...binding, principal: "alice" }))).reason).toBe("foreign");
    const alice = await codec.seal("x", { ...binding, principal: "alice" });
    expect(await codec.open(alice, { ...binding, principal: "alice" })).toBe("x");
    expect((await rejection(codec.open(alice, { ...binding, principal: "bob" }))).reason).toBe("foreign");
    expect((await rejection(codec.open(alice, binding))).reason).toBe("foreign");
  });

  it("non-strings and shapes that are not ours are malformed", async () => {
    const codec = new RequestStateCodec({ key: KEY });
    for (
      const bad of [
        null,
        5,
        {},
        ["a"],
        "",
        "abc",
        "a.b.c",
        ".abc",
        "a+b.c",
        "abc.",
        "abc.!!!",
        `abc.${"A".repeat(42)}`,
      ]
    ) {
      const err = await rejection(codec.open(bad, binding));
      expect(err.reason, JSON.stringify(bad)).toBe("malformed");
    }
  });

  it("a body that verifies but is not our JSON is malformed (strict parsing)", async () => {
    // Sign arbitrary bodies with the same key to reach the parser.
    const keyBytes = new Uint8Array(32).map((_, i) => parseInt(KEY.slice(i * 2, i * 2 + 2), 16));
    const key = await crypto.subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
    ]);
    const codec = new RequestStateCodec({ key: KEY });
    const digest = await paramsDigest(params);
    const forge = async (text: string) => {
      const body = base64UrlEncode(new TextEncoder().encode(text));
      const tag = new Uint8Array(
        await crypto.subtle.sign("HMAC", key, new TextEncoder().encode("omc-request-state-v1." + body)),
      );
      return `${body}.${base64UrlEncode(tag)}`;
    };
    const good = await forge(JSON.stringify({ v: 1, m: "tools/call", d: digest, e: 9e15, p: 7 }));
    expect(await codec.open(good, binding)).toBe(7);
    for (
      const text of [
        "not json",
        "[]",
        JSON.stringify({ v: 2, m: "tools/call", d: digest, e: 9e15, p: 7 }),
        JSON.stringify({ v: 1, m: "tools/call", d: digest, e: "9e15", p: 7 }),
        JSON.stringify({ v: 1, m: "tools/call", d: digest, e: 9e15 }),
        JSON.stringify({ v: 1, m: "tools/call", d: digest, e: 9e15, p: 7, extra: 1 }),
      ]
    ) {
      expect((await rejection(codec.open(await forge(text), binding))).reason, text).toBe("malformed");
    }
    const badUtf8 = base64UrlEncode(new Uint8Array([0xff, 0xfe]));
    const tag = new Uint8Array(
      await crypto.subtle.sign("HMAC", key, new TextEncoder().encode("omc-request-state-v1." + badUtf8)),
    );
    expect((await rejection(codec.open(`${badUtf8}.${base64UrlEncode(tag)}`, binding))).reason).toBe(
      "malformed",
    );
  });

  it("refuses a state longer than maxStateBytes before decoding it, and accepts one at the limit", async () => {
    const codec = new RequestStateCodec({ key: KEY, maxStateBytes: 200 });
    const state = await codec.seal("x", binding);
    const limit = new RequestStateCodec({ key: KEY, maxStateBytes: state.length });
    expect(await limit.open(state, binding)).toBe("x");
    const err = await rejection(limit.open(state + "A", binding));
    expect(err.reason).toBe("oversize");
    expect(err.message).toContain(String(state.length + 1));
    expect(new RequestStateCodec().maxStateBytes).toBe(65_536);
  });

  it("seal refuses a payload above maxPayloadBytes and takes one at the limit", async () => {
    const codec = new RequestStateCodec({ key: KEY, maxPayloadBytes: 12 });
    await expect(codec.seal("1234567890", binding)).resolves.toBeTypeOf("string"); // 12 characters of JSON
    await expect(codec.seal("12345678901", binding)).rejects.toThrow(/maxPayloadBytes 12/);
    expect(new RequestStateCodec().maxPayloadBytes).toBe(32_768);
  });

  it("seal refuses a state that would exceed maxStateBytes", async () => {
    const codec = new RequestStateCodec({ key: KEY, maxStateBytes: 64 });
    await expect(codec.seal("x".repeat(100), binding)).rejects.toThrow(/above maxStateBytes 64/);
  });

  it("rejects bad keys and options with InvalidOptionError", () => {
    expect(() => new RequestStateCodec({ key: "abc" })).toThrow(InvalidOptionError);
    expect(() => new RequestStateCodec({ key: "g".repeat(64) })).toThrow(/64 hex/);
    expect(() => new RequestStateCodec({ key: new Uint8Array(31) })).toThrow(/at least 32 bytes, got 31/);
    expect(() => new RequestStateCodec({ key: new Uint8Array(32) })).not.toThrow();
    expect(() => new RequestStateCodec({ stateTtl: -1 })).toThrow(InvalidOptionError);
  });

  it("params nested beyond the digest's depth bound are refused, not a stack overflow", async () => {
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = [deep];
    const codec = new RequestStateCodec({ key: KEY });
    const err = await rejection(codec.seal("x", { method: "tools/call", params: { deep } }));
    expect(err.reason).toBe("malformed");
  });
});

describe("canonical params digest", () => {
  it("ignores key order, inputResponses, requestState and _meta, and nothing else", async () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[1,{"y":2,"z":1}]},"b":1}',
    );
    const base = await paramsDigest({ name: "x", arguments: { q: 1 } });
    expect(
      await paramsDigest({
        arguments: { q: 1 },
        name: "x",
        inputResponses: {},
        requestState: "s",
        _meta: { a: 1 },
      }),
    ).toBe(base);
    expect(await paramsDigest({ name: "x", arguments: { q: 2 } })).not.toBe(base);
    expect(await paramsDigest({ name: "x", arguments: { q: 1 }, extra: true })).not.toBe(base);
  });
});

describe("base64url", () => {
  it("round-trips and refuses non-canonical or foreign characters", () => {
    const bytes = new Uint8Array([0, 1, 250, 251, 252, 253, 254, 255]);
    const text = base64UrlEncode(bytes);
    expect(text).not.toMatch(/[+/=]/);
    expect(base64UrlDecode(text)).toEqual(bytes);
    expect(base64UrlDecode("AB")).toBeUndefined(); // stray bits in the last character
    expect(base64UrlDecode("A")).toBeUndefined();
    expect(base64UrlDecode("AA==")).toBeUndefined();
    expect(base64UrlDecode("A+A")).toBeUndefined();
  });
});
