// deno-lint-ignore-file no-explicit-any -- tests reach into loosely typed peer objects
import { describe, expect, it } from "vitest";
import {
  accepted,
  forbidden,
  headerMismatch,
  HTTP_ERRORS,
  httpError,
  httpErrorFor,
  invalidParams,
  invalidRequest,
  methodNotAllowed,
  methodNotFound,
  missingRequiredClientCapability,
  parseError,
  payloadTooLarge,
  unsupportedProtocolVersion,
} from "../../../src/http/http_errors.ts";
import { validateRequestHeaders } from "../../../src/http/mcp_request_headers.ts";
import { JsonRpcError } from "../../../src/wire/errors.ts";

async function read(response: Response): Promise<{ status: number; body: any; type: string | null }> {
  return { status: response.status, body: await response.json(), type: response.headers.get("content-type") };
}

describe("the HTTP error table", () => {
  it("holds the status and code of every answer of the design table", () => {
    expect(HTTP_ERRORS.headerMismatch).toMatchObject({ status: 400, code: -32020 });
    expect(HTTP_ERRORS.unsupportedProtocolVersion).toMatchObject({ status: 400, code: -32022 });
    expect(HTTP_ERRORS.missingRequiredClientCapability).toMatchObject({ status: 400, code: -32021 });
    expect(HTTP_ERRORS.invalidParams).toMatchObject({ status: 400, code: -32602 });
    expect(HTTP_ERRORS.methodNotFound).toMatchObject({ status: 404, code: -32601 });
    expect(HTTP_ERRORS.methodNotAllowed.status).toBe(405);
    expect(HTTP_ERRORS.payloadTooLarge.status).toBe(413);
    expect(HTTP_ERRORS.forbidden.status).toBe(403);
    expect(HTTP_ERRORS.parseError).toMatchObject({ status: 400, code: -32700 });
  });

  it("gives every row a distinct status-and-code pair", () => {
    const pairs = Object.values(HTTP_ERRORS).map((row) => `${row.status}/${row.code}`);
    expect(new Set(pairs).size).toBe(pairs.length);
  });

  it("answers with a JSON-RPC error body that echoes a string or number id", async () => {
    expect(await read(httpError("invalidParams", 7))).toEqual({
      status: 400,
      type: "application/json",
      body: { jsonrpc: "2.0", id: 7, error: { code: -32602, message: "Invalid params" } },
    });
    expect((await read(httpError("invalidParams", "abc"))).body.id).toBe("abc");
  });

  it("omits an id that could not be read", async () => {
    for (const id of [undefined, null, { x: 1 }, Number.NaN]) {
      const { body } = await read(httpError("invalidParams", id));
      expect("id" in body).toBe(false);
    }
  });

  it("lets a caller replace the message, add data and add headers", async () => {
    const response = httpError("tooManyStreams", 1, {
      message: "Too many listen streams (100)",
      data: { limit: 100 },
      headers: { "Retry-After": "5" },
    });
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("5");
    expect((await response.json()).error).toEqual({
      code: -32000,
      message: "Too many listen streams (100)",
      data: { limit: 100 },
    });
  });
});

describe("the named answers", () => {
  it("400/-32020 carries the HeaderMismatch error of the validator", async () => {
    const error = validateRequestHeaders(new Headers({ "Mcp-Method": "x" }), {
      jsonrpc: "2.0",
      id: 3,
      method: "tools/list",
    })!;
    const { status, body } = await read(headerMismatch(3, error));
    expect(status).toBe(400);
    expect(body).toEqual({
      jsonrpc: "2.0",
      id: 3,
      error: { code: -32020, message: error.message, data: error.data },
    });
  });

  it("400/-32022 lists the supported and requested versions", async () => {
    const { status, body } = await read(
      unsupportedProtocolVersion(1, "2099-01-01", ["2026-07-28", "2025-11-25"]),
    );
    expect(status).toBe(400);
    expect(body.error.code).toBe(-32022);
    expect(body.error.data).toEqual({ supported: ["2026-07-28", "2025-11-25"], requested: "2099-01-01" });
    expect(body.error.message).toContain("2099-01-01");
  });

  it("400/-32021 carries requiredCapabilities", async () => {
    const { status, body } = await read(missingRequiredClientCapability(1, { elicitation: {} }));
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
  });

  it("400/-32602, 400/-32600 and 400/-32700", async () => {
    expect(await read(invalidParams(1, "Missing _meta key"))).toMatchObject({
      status: 400,
      body: { id: 1, error: { code: -32602, message: "Missing _meta key" } },
    });
    expect(await read(invalidRequest(2, "Batches are not supported"))).toMatchObject({
      status: 400,
      body: { id: 2, error: { code: -32600 } },
    });
    const parse = await read(parseError("Parse error: the request body is not JSON"));
    expect(parse).toMatchObject({ status: 400, body: { error: { code: -32700 } } });
    expect("id" in parse.body).toBe(false);
  });

  it("404/-32601 names the method", async () => {
    expect(await read(methodNotFound(9, "initialize"))).toMatchObject({
      status: 404,
      body: { id: 9, error: { code: -32601, message: 'Method not found: "initialize"' } },
    });
  });

  it("405 carries Allow: POST by default, or the given methods", async () => {
    const response = methodNotAllowed("GET");
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    expect((await response.json()).error.message).toContain("GET");
    expect(methodNotAllowed("PUT", ["GET", "POST", "DELETE"]).headers.get("allow")).toBe("GET, POST, DELETE");
  });

  it("413 names the limit and 403 has no id", async () => {
    const large = await read(payloadTooLarge(4_194_304));
    expect(large.status).toBe(413);
    expect(large.body.error.message).toContain("4194304");
    const denied = await read(forbidden('Origin "http://evil.example" is not allowed'));
    expect(denied.status).toBe(403);
    expect("id" in denied.body).toBe(false);
    expect(denied.body.error.message).toContain("evil.example");
  });

  it("202 has no body", async () => {
    const response = accepted();
    expect(response.status).toBe(202);
    expect(response.body).toBeNull();
  });

  it("httpErrorFor picks the row from the error code and falls back to 400", async () => {
    expect((await read(httpErrorFor(new JsonRpcError(-32601, "Method not found: x"), 1))).status).toBe(404);
    expect(
      (await read(httpErrorFor(new JsonRpcError(-32022, "v", { supported: [], requested: "x" }), 1))).body
        .error.data,
    ).toEqual({ supported: [], requested: "x" });
    expect((await read(httpErrorFor(new JsonRpcError(-31999, "custom"), 1))).status).toBe(400);
  });
});
