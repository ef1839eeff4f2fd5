import { describe, expect, it } from "vitest";
import { cancelledIdLiteral, messageText, requestIdLiteral } from "../../../src/http/exact_id_text.ts";
import { MAX_ID_LENGTH } from "../../../src/wire/json_rpc_message.ts";
import { JsonText } from "../../../src/wire/json_text.ts";

function literalOf(text: string): string | undefined {
  return requestIdLiteral(JSON.parse(text), text);
}

describe("requestIdLiteral", () => {
  it("gives the text of an id JSON.parse rounded, and nothing for ids it holds exactly", () => {
    expect(literalOf('{"jsonrpc":"2.0","id":9007199254740995,"method":"m"}')).toBe("9007199254740995");
    expect(literalOf('{ "id" : 9007199254740997 , "method":"m"}')).toBe("9007199254740997");
    expect(literalOf('{"jsonrpc":"2.0","id":9007199254740991,"method":"m"}')).toBeUndefined();
    expect(literalOf('{"jsonrpc":"2.0","id":"9007199254740995","method":"m"}')).toBeUndefined();
    expect(literalOf('{"jsonrpc":"2.0","id":1.5,"method":"m"}')).toBeUndefined();
    expect(literalOf('[{"id":9007199254740995}]')).toBeUndefined();
  });

  it("keeps no text longer than a request id may be", () => {
    const fits = `9007199254740995.${"0".repeat(MAX_ID_LENGTH - 18)}1`;
    expect(fits.length).toBe(MAX_ID_LENGTH);
    expect(literalOf(`{"id":${fits},"method":"m"}`)).toBe(fits);
    const long = `9007199254740995.${"0".repeat(MAX_ID_LENGTH - 17)}1`;
    expect(literalOf(`{"id":${long},"method":"m"}`)).toBeUndefined();
  });
});

describe("cancelledIdLiteral", () => {
  it("gives the text of a cancelled requestId JSON.parse rounded, only for notifications/cancelled", () => {
    const text =
      '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9007199254740997}}';
    expect(cancelledIdLiteral(JSON.parse(text), text)).toBe("9007199254740997");
    const other = text.replace("notifications/cancelled", "notifications/progress");
    expect(cancelledIdLiteral(JSON.parse(other), other)).toBeUndefined();
    const small = text.replace("9007199254740997", "7");
    expect(cancelledIdLiteral(JSON.parse(small), small)).toBeUndefined();
  });
});

describe("messageText", () => {
  it("is JSON.stringify's text without an id text or a serialised result", () => {
    const reply = { jsonrpc: "2.0", id: 3, error: { code: -32600, message: "m" } };
    expect(messageText(reply)).toBe(JSON.stringify(reply));
  });

  it("writes the id as its exact text, with a result or an error, and a serialised result as it is", () => {
    expect(messageText({ jsonrpc: "2.0", id: 9007199254740996, result: { a: 1 } }, "9007199254740995"))
      .toBe('{"jsonrpc":"2.0","id":9007199254740995,"result":{"a":1}}');
    expect(messageText({ jsonrpc: "2.0", error: { code: -32600, message: "m" } }, "9007199254740997"))
      .toBe('{"jsonrpc":"2.0","id":9007199254740997,"error":{"code":-32600,"message":"m"}}');
    expect(messageText({ jsonrpc: "2.0", id: 1, result: new JsonText('{"b":2}') }))
      .toBe('{"jsonrpc":"2.0","id":1,"result":{"b":2}}');
    expect(messageText({ jsonrpc: "2.0", id: 1, result: new JsonText("{}") }, "9007199254740995"))
      .toBe('{"jsonrpc":"2.0","id":9007199254740995,"result":{}}');
  });
});
