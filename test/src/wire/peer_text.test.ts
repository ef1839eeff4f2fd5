/** quotePeerText (bounded, inert quoting of peer text) and scanMessageHead (the bounded id scanner). */
import { describe, expect, it } from "vitest";
import { quotePeerText } from "../../../src/wire/quote_peer_text.ts";
import { scanMessageHead } from "../../../src/wire/scan_message_head.ts";

describe("quotePeerText", () => {
  it("quotes a short string whole, JSON-escaped", () => {
    expect(quotePeerText("tools/call")).toBe('"tools/call"');
    expect(quotePeerText('a"b\\c')).toBe('"a\\"b\\\\c"');
  });

  it("cuts a long string at the bound and says its length", () => {
    const quoted = quotePeerText("x".repeat(10_000_000), 8);
    expect(quoted).toBe('"xxxxxxxx"… (10000000 characters)');
  });

  it("keeps a string of exactly the bound whole (not cut early)", () => {
    expect(quotePeerText("y".repeat(8), 8)).toBe(`"${"y".repeat(8)}"`);
  });

  it("escapes every character that could start a line or steer a terminal", () => {
    const quoted = quotePeerText("a\nb\rc\u0085d\u2028e\u2029f\u001b[2Jg\u007fh\u009bi");
    // deno-lint-ignore no-control-regex
    expect(quoted).not.toMatch(/[\n\r\u0085\u2028\u2029\u001b\u007f\u009b]/);
    expect(JSON.parse(quoted)).toBe("a\nb\rc\u0085d\u2028e\u2029f\u001b[2Jg\u007fh\u009bi");
  });

  it("writes numbers and null as they are, and names other values by type only", () => {
    expect(quotePeerText(9007199254740993)).toBe("9007199254740992");
    expect(quotePeerText(null)).toBe("null");
    expect(quotePeerText({ huge: "x".repeat(1_000_000) })).toBe("(object)");
    expect(quotePeerText([1, 2])).toBe("(array)");
  });
});

describe("scanMessageHead", () => {
  it("reads the top-level id literal and the members seen", () => {
    const head = scanMessageHead('{"jsonrpc":"2.0","id":9007199254740993,"result":{"id":1}}');
    expect(head).toEqual({
      idLiteral: "9007199254740993",
      hasMethod: false,
      hasResult: true,
      hasError: false,
    });
  });

  it("skips nested ids, strings holding braces and quotes, to find the top-level one", () => {
    const text = '{"params":{"id":1,"s":"}\\"{"},"method":"m","id":"top"}';
    expect(scanMessageHead(text)).toEqual({
      idLiteral: '"top"',
      hasMethod: true,
      hasResult: false,
      hasError: false,
    });
  });

  it("stops at the limit with what it read by then", () => {
    const text = `{"jsonrpc":"2.0","result":"${"x".repeat(10_000)}","id":5}`;
    expect(scanMessageHead(text, 4096)).toEqual({ hasMethod: false, hasResult: true, hasError: false });
    expect(scanMessageHead(text).idLiteral).toBe("5");
  });

  it("gives nothing for what is not an object, and ignores ids that are not strings or numbers", () => {
    expect(scanMessageHead("[1,2]")).toEqual({ hasMethod: false, hasResult: false, hasError: false });
    expect(scanMessageHead('{"id":null,"error":{}}').idLiteral).toBeUndefined();
    expect(scanMessageHead('{"id":12').idLiteral).toBeUndefined(); // a number cut by the end may be longer
  });
});
