import { describe, expect, it } from "vitest";
import { type ParamHeader, readMcpHeaderAnnotations } from "../../../src/http/mcp_header_annotations.ts";
import {
  deriveRequestHeaders,
  HEADER_MISMATCH,
  McpHeaders,
  validateRequestHeaders,
} from "../../../src/http/mcp_request_headers.ts";
import { JsonRpcError, ProtocolError } from "../../../src/wire/errors.ts";

const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

function request(method: string, params: Record<string, unknown> = {}, id: number | string = 1) {
  return { jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } };
}

const schema = {
  type: "object",
  properties: {
    region: { type: "string", "x-mcp-header": "Region" },
    priority: { type: "integer", "x-mcp-header": "Priority" },
    verbose: { type: "boolean", "x-mcp-header": "Verbose" },
    greeting: { type: "string", "x-mcp-header": "Greeting" },
    target: { type: "object", properties: { zone: { type: "string", "x-mcp-header": "Zone" } } },
    query: { type: "string" },
  },
};
const reading = readMcpHeaderAnnotations(schema);
const paramHeaders: ParamHeader[] = reading.ok ? reading.params : [];

describe("deriveRequestHeaders", () => {
  it("derives the protocol version and method of any request", () => {
    expect(deriveRequestHeaders(request("tools/list"))).toEqual({
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": "tools/list",
    });
  });

  it("takes Mcp-Name from params.name for tools/call and prompts/get and from params.uri for resources/read", () => {
    expect(
      deriveRequestHeaders(request("tools/call", { name: "get_weather", arguments: {} }))[McpHeaders.name],
    ).toBe("get_weather");
    expect(deriveRequestHeaders(request("prompts/get", { name: "greet" }))[McpHeaders.name]).toBe("greet");
    expect(deriveRequestHeaders(request("resources/read", { uri: "file:///a b.json" }))[McpHeaders.name])
      .toBe("file:///a b.json");
    expect(deriveRequestHeaders(request("resources/list", { name: "x", uri: "y" }))[McpHeaders.name])
      .toBeUndefined();
  });

  it("encodes a name that is not header safe", () => {
    expect(deriveRequestHeaders(request("tools/call", { name: "天気" }))[McpHeaders.name]).toBe(
      "=?base64?5aSp5rCX?=",
    );
  });

  it("uses the protocolVersion option when the body carries none", () => {
    expect(deriveRequestHeaders({ jsonrpc: "2.0", id: 1, method: "ping" }, { protocolVersion: "2025-11-25" }))
      .toEqual({
        "MCP-Protocol-Version": "2025-11-25",
        "Mcp-Method": "ping",
      });
    expect(deriveRequestHeaders({ jsonrpc: "2.0", id: 1, method: "ping" })).toEqual({ "Mcp-Method": "ping" });
  });

  it("mirrors annotated arguments with the value conversion and encoding, and nothing else", () => {
    const headers = deriveRequestHeaders(
      request("tools/call", {
        name: "sql",
        arguments: {
          region: "us-west1",
          priority: 42,
          verbose: false,
          greeting: "Hello, 世界",
          target: { zone: "b" },
          query: "SELECT 1",
        },
      }),
      { paramHeaders },
    );
    expect(headers).toEqual({
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": "tools/call",
      "Mcp-Name": "sql",
      "Mcp-Param-Region": "us-west1",
      "Mcp-Param-Priority": "42",
      "Mcp-Param-Verbose": "false",
      "Mcp-Param-Greeting": "=?base64?SGVsbG8sIOS4lueVjA==?=",
      "Mcp-Param-Zone": "b",
    });
  });

  it("omits the header of an argument that is null or absent", () => {
    const headers = deriveRequestHeaders(
      request("tools/call", { name: "sql", arguments: { region: "eu", verbose: null } }),
      { paramHeaders },
    );
    expect(Object.keys(headers).filter((h) => h.startsWith("Mcp-Param-"))).toEqual(["Mcp-Param-Region"]);
  });

  it("mirrors parameters only on tools/call", () => {
    const headers = deriveRequestHeaders(request("prompts/get", { name: "p", arguments: { region: "eu" } }), {
      paramHeaders,
    });
    expect(headers["Mcp-Param-Region"]).toBeUndefined();
  });

  it("throws a typed error for an argument it cannot mirror", () => {
    const call = (priority: unknown) =>
      deriveRequestHeaders(request("tools/call", { name: "sql", arguments: { priority } }), { paramHeaders });
    expect(call(Number.MAX_SAFE_INTEGER)["Mcp-Param-Priority"]).toBe("9007199254740991");
    expect(() => call(Number.MAX_SAFE_INTEGER + 1)).toThrow(ProtocolError);
    expect(() => call({ nested: true })).toThrow(
      /^Argument for Mcp-Param-Priority cannot be sent as a header: \{"nested":true\}/,
    );
    expect(() => call(Number.MAX_SAFE_INTEGER + 1)).toThrow(/9007199254740992/);
  });
});

describe("validateRequestHeaders", () => {
  function check(
    message: unknown,
    headers: Record<string, string>,
    params: ParamHeader[] = paramHeaders,
  ): JsonRpcError | undefined {
    return validateRequestHeaders(new Headers(headers), message, { paramHeaders: params });
  }

  it("accepts what deriveRequestHeaders produced, for every kind of request", () => {
    const messages = [
      request("tools/list"),
      request("tools/call", {
        name: "天気",
        arguments: { region: " padded ", priority: -7, verbose: true, target: { zone: "z" } },
      }),
      request("prompts/get", { name: "greet" }),
      request("resources/read", { uri: "file:///ü.txt" }),
    ];
    for (const message of messages) {
      expect(check(message, deriveRequestHeaders(message, { paramHeaders }))).toBeUndefined();
    }
  });

  it("reports a mismatched Mcp-Name as the specification's example does", () => {
    const error = check(request("tools/call", { name: "bar" }), {
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": "tools/call",
      "Mcp-Name": "foo",
    });
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error?.code).toBe(HEADER_MISMATCH);
    expect(error?.message).toBe(
      "Header mismatch: Mcp-Name header value 'foo' does not match body value 'bar'",
    );
    expect(error?.data).toEqual({
      header: "Mcp-Name",
      reason: "mismatch",
      headerValue: "foo",
      bodyValue: "bar",
    });
  });

  it("requires MCP-Protocol-Version and compares it with the body's _meta", () => {
    const message = request("tools/list");
    expect(check(message, { "Mcp-Method": "tools/list" })?.data).toMatchObject({
      header: "MCP-Protocol-Version",
      reason: "missing",
    });
    expect(check(message, { "MCP-Protocol-Version": "2025-11-25", "Mcp-Method": "tools/list" })?.data)
      .toMatchObject({
        header: "MCP-Protocol-Version",
        reason: "mismatch",
        headerValue: "2025-11-25",
        bodyValue: "2026-07-28",
      });
    const bare = { jsonrpc: "2.0", id: 1, method: "tools/list" };
    expect(check(bare, { "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list" })?.message)
      .toMatch(/has no value in the body/);
  });

  it("requires Mcp-Method and compares it case-sensitively", () => {
    const message = request("tools/list");
    expect(check(message, { "MCP-Protocol-Version": "2026-07-28" })?.data).toMatchObject({
      header: "Mcp-Method",
      reason: "missing",
    });
    expect(check(message, { "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "prompts/list" })?.data)
      .toMatchObject({ reason: "mismatch" });
    expect(check(message, { "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "TOOLS/LIST" })?.data)
      .toMatchObject({ reason: "mismatch" });
  });

  it("matches header names in any case and trims whitespace around values", () => {
    const message = request("tools/call", { name: "tool_a" });
    expect(
      check(message, {
        "mcp-protocol-version": "2026-07-28",
        "MCP-METHOD": "tools/call",
        "mcp-name": "  tool_a  ",
      }),
    ).toBeUndefined();
  });

  it("requires Mcp-Name when the body has the name, and refuses it when the body has none", () => {
    const base = { "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call" };
    expect(check(request("tools/call", { name: "t" }), base)?.data).toMatchObject({
      header: "Mcp-Name",
      reason: "missing",
      bodyValue: "t",
    });
    expect(check(request("tools/call", {}), { ...base, "Mcp-Name": "t" })?.data).toMatchObject({
      header: "Mcp-Name",
      reason: "mismatch",
    });
    expect(check(request("tools/call", {}), base)).toBeUndefined();
  });

  it("compares resources/read's Mcp-Name with params.uri after decoding", () => {
    const base = { "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "resources/read" };
    expect(
      check(request("resources/read", { uri: "file:///é" }), {
        ...base,
        "Mcp-Name": "=?base64?ZmlsZTovLy/DqQ==?=",
      }),
    ).toBeUndefined();
    expect(
      check(request("resources/read", { uri: "file:///e" }), {
        ...base,
        "Mcp-Name": "=?base64?ZmlsZTovLy/DqQ==?=",
      })?.data,
    ).toMatchObject({
      reason: "mismatch",
      headerValue: "file:///é",
    });
  });

  describe("Mcp-Param headers", () => {
    const call = (args: Record<string, unknown>) => request("tools/call", { name: "sql", arguments: args });
    const base = { "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "sql" };

    it("accepts valid base64 and literal values that merely look like base64", () => {
      expect(check(call({ region: "Hello" }), { ...base, "Mcp-Param-Region": "=?base64?SGVsbG8=?=" }))
        .toBeUndefined();
      expect(check(call({ region: "SGVsbG8=" }), { ...base, "Mcp-Param-Region": "SGVsbG8=" }))
        .toBeUndefined();
      expect(
        check(call({ region: "=?base64?SGVsbG8=" }), { ...base, "Mcp-Param-Region": "=?base64?SGVsbG8=" }),
      ).toBeUndefined();
    });

    it("refuses invalid base64 padding and characters as invalid", () => {
      for (const bad of ["=?base64?SGVsbG8?=", "=?base64?SGVs!!!bG8=?="]) {
        const error = check(call({ region: "Hello" }), { ...base, "Mcp-Param-Region": bad });
        expect(error?.code).toBe(HEADER_MISMATCH);
        expect(error?.data).toMatchObject({ header: "Mcp-Param-Region", reason: "invalid" });
      }
    });

    it("requires the header of a present argument and refuses one for an absent or null argument", () => {
      expect(check(call({ region: "eu" }), base)?.data).toMatchObject({
        header: "Mcp-Param-Region",
        reason: "missing",
        bodyValue: "eu",
      });
      expect(check(call({}), { ...base, "Mcp-Param-Region": "eu" })?.data).toMatchObject({
        header: "Mcp-Param-Region",
        reason: "mismatch",
      });
      expect(check(call({ verbose: null }), base)).toBeUndefined();
      expect(check(call({ verbose: null }), { ...base, "Mcp-Param-Verbose": "true" })?.data).toMatchObject({
        reason: "mismatch",
      });
    });

    it("compares integers numerically and booleans as words", () => {
      expect(check(call({ priority: 42 }), { ...base, "Mcp-Param-Priority": "42.0" })).toBeUndefined();
      expect(check(call({ priority: 42 }), { ...base, "Mcp-Param-Priority": "41" })?.data).toMatchObject({
        reason: "mismatch",
        bodyValue: 42,
      });
      expect(check(call({ verbose: true }), { ...base, "Mcp-Param-Verbose": "true" })).toBeUndefined();
      expect(check(call({ verbose: true }), { ...base, "Mcp-Param-Verbose": "1" })?.data).toMatchObject({
        reason: "mismatch",
      });
    });

    it("refuses a body value that is not a primitive", () => {
      expect(check(call({ region: { a: 1 } }), { ...base, "Mcp-Param-Region": "[object Object]" })?.data)
        .toMatchObject({ reason: "mismatch" });
    });

    it("ignores Mcp-Param headers no parameter declares, and declared ones on other methods", () => {
      expect(check(call({}), { ...base, "Mcp-Param-Unknown": "x" })).toBeUndefined();
      const list = request("tools/list");
      expect(
        check(list, {
          "MCP-Protocol-Version": "2026-07-28",
          "Mcp-Method": "tools/list",
          "Mcp-Param-Region": "x",
        }),
      ).toBeUndefined();
    });

    it("checks a header value against maxHeaderValueLength", () => {
      const value = "a".repeat(100);
      const headers = new Headers({ ...base, "Mcp-Param-Region": value });
      expect(
        validateRequestHeaders(headers, call({ region: value }), { paramHeaders, maxHeaderValueLength: 100 }),
      ).toBeUndefined();
      expect(
        validateRequestHeaders(headers, call({ region: value }), { paramHeaders, maxHeaderValueLength: 99 })
          ?.data,
      ).toMatchObject({ reason: "invalid" });
    });
  });

  it("does not check notifications", () => {
    expect(check({ jsonrpc: "2.0", method: "notifications/initialized" }, {})).toBeUndefined();
  });
});
