/**
 * JSON-RPC message classification and the error responses the connection writes.
 */
import { describe, expect, it } from "vitest";
import { JsonRpcError } from "../../src/wire/errors.ts";
import {
  classifyMessage,
  errorResponse,
  errorResponseFor,
  idKey,
  isRequestId,
} from "../../src/wire/json_rpc_message.ts";

describe("classifyMessage", () => {
  it("sorts requests, notifications, results and errors", () => {
    expect(classifyMessage({ jsonrpc: "2.0", id: 1, method: "m", params: { a: 1 } })).toEqual({
      kind: "request",
      request: { id: 1, method: "m", params: { a: 1 } },
    });
    expect(classifyMessage({ jsonrpc: "2.0", id: "x", method: "m" })).toEqual({
      kind: "request",
      request: { id: "x", method: "m", params: undefined },
    });
    expect(classifyMessage({ jsonrpc: "2.0", method: "n", params: [1] })).toEqual({
      kind: "notification",
      method: "n",
      params: [1],
    });
    expect(classifyMessage({ jsonrpc: "2.0", id: 2, result: null })).toEqual({
      kind: "result",
      id: 2,
      result: null,
    });
    const error = classifyMessage({
      jsonrpc: "2.0",
      id: 3,
      error: { code: -32601, message: "Nope", data: { x: 1 } },
    });
    expect(error.kind).toBe("error");
    if (error.kind === "error") {
      expect(error.id).toBe(3);
      expect(error.error).toBeInstanceOf(JsonRpcError);
      expect(error.error).toMatchObject({ code: -32601, message: "Nope", data: { x: 1 } });
    }
  });

  it("accepts error responses with id null or without id, with the id left undefined", () => {
    expect(classifyMessage({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }))
      .toMatchObject({ kind: "error", id: undefined });
    expect(classifyMessage({ jsonrpc: "2.0", error: { code: -32600, message: "Invalid" } })).toMatchObject({
      kind: "error",
      id: undefined,
    });
  });

  it("rejects a request with id null, a boolean, an object or a non-finite number, without an id", () => {
    for (const id of [null, true, {}, [], Number.NaN]) {
      expect(classifyMessage({ jsonrpc: "2.0", id, method: "m" })).toMatchObject({
        kind: "invalid",
        id: undefined,
      });
    }
  });

  it("rejects batches, non-objects, a wrong jsonrpc member and a non-string method", () => {
    expect(classifyMessage([{ jsonrpc: "2.0", id: 1, method: "m" }])).toMatchObject({
      kind: "invalid",
      id: undefined,
      reason: expect.stringMatching(/batch/),
    });
    expect(classifyMessage([])).toMatchObject({ kind: "invalid", id: undefined });
    for (const v of [null, 1, "s", true]) {
      expect(classifyMessage(v)).toMatchObject({ kind: "invalid", id: undefined });
    }
    expect(classifyMessage({ id: 4, method: "m" })).toMatchObject({ kind: "invalid", id: 4 });
    expect(classifyMessage({ jsonrpc: "1.0", id: 4, method: "m" })).toMatchObject({ kind: "invalid", id: 4 });
    expect(classifyMessage({ jsonrpc: "2.0", id: 5, method: 7 })).toMatchObject({ kind: "invalid", id: 5 });
    expect(classifyMessage({ jsonrpc: "2.0", id: 6 })).toMatchObject({ kind: "invalid", id: 6 });
  });

  it("rejects a malformed error object and a result without a usable id", () => {
    expect(classifyMessage({ jsonrpc: "2.0", id: 1, error: "bad" })).toMatchObject({
      kind: "invalid",
      id: 1,
    });
    expect(classifyMessage({ jsonrpc: "2.0", id: 1, error: { message: "no code" } })).toMatchObject({
      kind: "invalid",
      id: 1,
    });
    expect(classifyMessage({ jsonrpc: "2.0", id: null, result: {} })).toMatchObject({
      kind: "invalid",
      id: undefined,
    });
    expect(classifyMessage({ jsonrpc: "2.0", result: {} })).toMatchObject({ kind: "invalid", id: undefined });
  });

  it("is not fooled by inherited members", () => {
    const parsed = JSON.parse('{"jsonrpc":"2.0","__proto__":{"method":"m","id":1}}');
    expect(classifyMessage(parsed).kind).toBe("invalid");
  });
});

describe("ids and error responses", () => {
  it('keeps 1 and "1" apart', () => {
    expect(idKey(1)).not.toBe(idKey("1"));
    expect(idKey("n:1")).not.toBe(idKey(1));
    expect(isRequestId(0)).toBe(true);
    expect(isRequestId("")).toBe(true);
    expect(isRequestId(null)).toBe(false);
    expect(isRequestId(Number.POSITIVE_INFINITY)).toBe(false);
  });

  it("omits id when it is unknown and never writes id null", () => {
    expect(errorResponse(undefined, -32700, "Parse error")).toEqual({
      jsonrpc: "2.0",
      error: { code: -32700, message: "Parse error" },
    });
    expect(errorResponse(0, -32600, "Invalid", { why: 1 })).toEqual({
      jsonrpc: "2.0",
      id: 0,
      error: { code: -32600, message: "Invalid", data: { why: 1 } },
    });
    expect(JSON.stringify(errorResponse(undefined, -32600, "x"))).not.toContain("null");
  });

  it("maps a thrown JsonRpcError to its own code and anything else to -32603", () => {
    expect(errorResponseFor(1, new JsonRpcError(-32602, "Bad", [1]))).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32602, message: "Bad", data: [1] },
    });
    expect(errorResponseFor(2, new Error("Oops"))).toEqual({
      jsonrpc: "2.0",
      id: 2,
      error: { code: -32603, message: "Oops" },
    });
    expect(errorResponseFor(3, "plain")).toEqual({
      jsonrpc: "2.0",
      id: 3,
      error: { code: -32603, message: "plain" },
    });
    expect(errorResponseFor(4, new Error(""))).toEqual({
      jsonrpc: "2.0",
      id: 4,
      error: { code: -32603, message: "Internal error" },
    });
  });
});
