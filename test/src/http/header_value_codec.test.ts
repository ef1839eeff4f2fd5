import { describe, expect, it } from "vitest";
import {
  decodeHeaderValue,
  DEFAULT_MAX_HEADER_VALUE_LENGTH,
  encodeHeaderValue,
  headerTextOf,
  headerValueMatches,
  isBase64Sentinel,
} from "../../../src/http/header_value_codec.ts";

describe("encodeHeaderValue", () => {
  it("keeps plain ASCII values, inner spaces and the empty string as they are", () => {
    expect(encodeHeaderValue("us-west1")).toBe("us-west1");
    expect(encodeHeaderValue("us west 1")).toBe("us west 1");
    expect(encodeHeaderValue("file:///projects/app/config.json")).toBe("file:///projects/app/config.json");
    expect(encodeHeaderValue("")).toBe("");
  });

  it("encodes the specification's examples exactly", () => {
    expect(encodeHeaderValue("Hello, 世界")).toBe("=?base64?SGVsbG8sIOS4lueVjA==?=");
    expect(encodeHeaderValue(" padded ")).toBe("=?base64?IHBhZGRlZCA=?=");
    expect(encodeHeaderValue("line1\nline2")).toBe("=?base64?bGluZTEKbGluZTI=?=");
    expect(encodeHeaderValue("=?base64?literal?=")).toBe("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
  });

  it("encodes a leading or trailing space, a tab anywhere, CR, DEL and other control characters", () => {
    for (
      const value of [
        " us-west1",
        "us-west1 ",
        "\tindented",
        "a\tb",
        "line1\r\nline2",
        "a\u007fb",
        "a\u0000b",
      ]
    ) {
      const encoded = encodeHeaderValue(value);
      expect(encoded.startsWith("=?base64?"), JSON.stringify(value)).toBe(true);
      expect(decodeHeaderValue(encoded)).toEqual({ ok: true, value });
    }
  });

  it("leaves a value that only starts like the sentinel plain", () => {
    expect(encodeHeaderValue("=?base64?abc")).toBe("=?base64?abc");
    expect(encodeHeaderValue("abc?=")).toBe("abc?=");
  });

  it("round-trips astral characters and long values", () => {
    const value = "🎉".repeat(20_000) + "é";
    const encoded = encodeHeaderValue(value);
    expect(decodeHeaderValue(encoded, { maxLength: encoded.length })).toEqual({ ok: true, value });
  });
});

describe("decodeHeaderValue", () => {
  it("decodes a sentinel value and takes anything else literally", () => {
    expect(decodeHeaderValue("=?base64?SGVsbG8=?=")).toEqual({ ok: true, value: "Hello" });
    expect(decodeHeaderValue("SGVsbG8=")).toEqual({ ok: true, value: "SGVsbG8=" });
    expect(decodeHeaderValue("=?base64?SGVsbG8=")).toEqual({ ok: true, value: "=?base64?SGVsbG8=" });
    expect(decodeHeaderValue("=?base64??=")).toEqual({ ok: true, value: "" });
  });

  it("treats the markers as case-sensitive", () => {
    expect(decodeHeaderValue("=?BASE64?SGVsbG8=?=")).toEqual({ ok: true, value: "=?BASE64?SGVsbG8=?=" });
  });

  it("trims optional whitespace around the value before decoding", () => {
    expect(decodeHeaderValue("  tool_a \t")).toEqual({ ok: true, value: "tool_a" });
    expect(decodeHeaderValue(" =?base64?SGVsbG8=?= ")).toEqual({ ok: true, value: "Hello" });
  });

  it("refuses missing padding, non-alphabet characters, URL-safe base64 and inner whitespace", () => {
    for (
      const raw of [
        "=?base64?SGVsbG8?=",
        "=?base64?SGVs!!!bG8=?=",
        "=?base64?-_-_?=",
        "=?base64?SGVs bG8=?=",
        "=?base64?S===?=",
      ]
    ) {
      const result = decodeHeaderValue(raw);
      expect(result.ok, raw).toBe(false);
    }
  });

  it("refuses non-canonical padding bits", () => {
    expect(decodeHeaderValue("=?base64?SGVsbG9=?=").ok).toBe(false);
    expect(decodeHeaderValue("=?base64?SGVsbG8=?=").ok).toBe(true);
  });

  it("refuses base64 of bytes that are not UTF-8", () => {
    const result = decodeHeaderValue("=?base64?/w==?=");
    expect(result).toMatchObject({ ok: false });
    expect(!result.ok && result.reason).toContain("not UTF-8");
  });

  it("refuses literal values with control or non-ASCII characters, and allows an inner tab", () => {
    expect(decodeHeaderValue("a\u0001b").ok).toBe(false);
    expect(decodeHeaderValue("caf\u00e9").ok).toBe(false);
    expect(decodeHeaderValue("a\u007fb").ok).toBe(false);
    expect(decodeHeaderValue("a\tb")).toEqual({ ok: true, value: "a\tb" });
  });

  it("accepts a value of exactly maxLength characters and refuses one more", () => {
    expect(decodeHeaderValue("a".repeat(DEFAULT_MAX_HEADER_VALUE_LENGTH)).ok).toBe(true);
    const over = decodeHeaderValue("a".repeat(DEFAULT_MAX_HEADER_VALUE_LENGTH + 1));
    expect(over.ok).toBe(false);
    expect(!over.ok && over.reason).toContain(String(DEFAULT_MAX_HEADER_VALUE_LENGTH));
    expect(decodeHeaderValue("abcd", { maxLength: 4 }).ok).toBe(true);
    expect(decodeHeaderValue("abcde", { maxLength: 4 }).ok).toBe(false);
  });

  it("recognises the sentinel only with both markers", () => {
    expect(isBase64Sentinel("=?base64??=")).toBe(true);
    expect(isBase64Sentinel("=?base64?=")).toBe(false);
    expect(isBase64Sentinel("=?base64?x")).toBe(false);
  });
});

describe("headerTextOf and headerValueMatches", () => {
  it("converts strings, integers and booleans, and nothing else", () => {
    expect(headerTextOf("x")).toBe("x");
    expect(headerTextOf(42)).toBe("42");
    expect(headerTextOf(-7)).toBe("-7");
    expect(headerTextOf(false)).toBe("false");
    expect(headerTextOf(true)).toBe("true");
    expect(headerTextOf(null)).toBeUndefined();
    expect(headerTextOf(undefined)).toBeUndefined();
    expect(headerTextOf(3.5)).toBeUndefined();
    expect(headerTextOf({})).toBeUndefined();
  });

  it("mirrors integers up to 2^53 - 1 and not beyond", () => {
    expect(headerTextOf(Number.MAX_SAFE_INTEGER)).toBe("9007199254740991");
    expect(headerTextOf(-Number.MAX_SAFE_INTEGER)).toBe("-9007199254740991");
    expect(headerTextOf(Number.MAX_SAFE_INTEGER + 1)).toBeUndefined();
  });

  it("compares integers numerically", () => {
    expect(headerValueMatches("42", 42)).toBe(true);
    expect(headerValueMatches("42.0", 42)).toBe(true);
    expect(headerValueMatches("4.2e1", 42)).toBe(true);
    expect(headerValueMatches("43", 42)).toBe(false);
    expect(headerValueMatches("0x2a", 42)).toBe(false);
    expect(headerValueMatches(" 42", 42)).toBe(false);
    expect(headerValueMatches("", 0)).toBe(false);
  });

  it("compares strings exactly and booleans as lowercase words", () => {
    expect(headerValueMatches("tools/list", "tools/list")).toBe(true);
    expect(headerValueMatches("TOOLS/LIST", "tools/list")).toBe(false);
    expect(headerValueMatches("42", "42.0")).toBe(false);
    expect(headerValueMatches("true", true)).toBe(true);
    expect(headerValueMatches("True", true)).toBe(false);
    expect(headerValueMatches("false", false)).toBe(true);
    expect(headerValueMatches("[object Object]", {})).toBe(false);
  });
});
