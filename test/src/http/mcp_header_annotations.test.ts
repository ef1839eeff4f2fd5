import { describe, expect, it } from "vitest";
import {
  argumentAt,
  readMcpHeaderAnnotations,
  screenTools,
} from "../../../src/http/mcp_header_annotations.ts";

const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: "object",
  properties,
  ...extra,
});

function reasonOf(schema: unknown): string {
  const reading = readMcpHeaderAnnotations(schema);
  if (reading.ok) throw new Error(`Expected ${JSON.stringify(schema)} to be refused`);
  return reading.reason;
}

describe("readMcpHeaderAnnotations", () => {
  it("reads the specification's example", () => {
    const schema = object(
      { region: { type: "string", "x-mcp-header": "Region" }, query: { type: "string" } },
      { required: ["region", "query"] },
    );
    expect(readMcpHeaderAnnotations(schema)).toEqual({
      ok: true,
      params: [{ name: "Region", path: ["region"] }],
    });
  });

  it("accepts integer and boolean properties, nullable types, and nested object properties", () => {
    const schema = object({
      priority: { type: "integer", "x-mcp-header": "Priority" },
      verbose: { type: ["boolean", "null"], "x-mcp-header": "Verbose" },
      target: object({ zone: { type: "string", "x-mcp-header": "Zone" } }),
    });
    expect(readMcpHeaderAnnotations(schema)).toEqual({
      ok: true,
      params: [
        { name: "Priority", path: ["priority"] },
        { name: "Verbose", path: ["verbose"] },
        { name: "Zone", path: ["target", "zone"] },
      ],
    });
  });

  it("reads a schema without annotations, or no schema, as no parameters", () => {
    expect(readMcpHeaderAnnotations(object({ q: { type: "string" } }))).toEqual({ ok: true, params: [] });
    expect(readMcpHeaderAnnotations(undefined)).toEqual({ ok: true, params: [] });
  });

  it("does not mistake a property named x-mcp-header, or x-mcp-header inside default/const data, for an annotation", () => {
    const schema = object({
      "x-mcp-header": { type: "string" },
      settings: { type: "object", default: { "x-mcp-header": "Nope" }, const: { "x-mcp-header": 1 } },
    });
    expect(readMcpHeaderAnnotations(schema)).toEqual({ ok: true, params: [] });
  });

  it("refuses every invalid tool of the conformance scenario", () => {
    const cases: Record<string, unknown> = {
      empty: object({ value: { type: "string", "x-mcp-header": "" } }),
      object: object({ data: { type: "object", "x-mcp-header": "Data" } }),
      array: object({ items: { type: "array", items: { type: "string" }, "x-mcp-header": "Items" } }),
      null: object({ nil: { type: "null", "x-mcp-header": "Nil" } }),
      sameCase: object({
        a: { type: "string", "x-mcp-header": "Region" },
        b: { type: "string", "x-mcp-header": "Region" },
      }),
      diffCase: object({
        a: { type: "string", "x-mcp-header": "MyField" },
        b: { type: "string", "x-mcp-header": "myfield" },
      }),
      space: object({ value: { type: "string", "x-mcp-header": "My Region" } }),
      colon: object({ value: { type: "string", "x-mcp-header": "Region:Primary" } }),
      nonAscii: object({ value: { type: "string", "x-mcp-header": "Région" } }),
      control: object({ value: { type: "string", "x-mcp-header": "Region\t1" } }),
    };
    for (const [name, schema] of Object.entries(cases)) {
      expect(readMcpHeaderAnnotations(schema).ok, name).toBe(false);
    }
  });

  it("names the value and the rule in its reasons", () => {
    expect(reasonOf(object({ v: { type: "string", "x-mcp-header": "" } }))).toMatch(/must not be empty/);
    expect(reasonOf(object({ v: { type: "string", "x-mcp-header": "A B" } }))).toMatch(
      /"A B" .*not an HTTP token/,
    );
    expect(reasonOf(object({ v: { type: "number", "x-mcp-header": "N" } }))).toMatch(/"N" .*type "number"/);
    expect(
      reasonOf(
        object({ a: { type: "string", "x-mcp-header": "X" }, b: { type: "string", "x-mcp-header": "x" } }),
      ),
    ).toMatch(/"x" .*repeats "X"/);
    expect(reasonOf(object({ v: { type: "string", "x-mcp-header": 7 } }))).toMatch(/must be a string, got 7/);
  });

  it("refuses number-typed, untyped and mixed-type properties", () => {
    expect(readMcpHeaderAnnotations(object({ v: { type: "number", "x-mcp-header": "V" } })).ok).toBe(false);
    expect(readMcpHeaderAnnotations(object({ v: { "x-mcp-header": "V" } })).ok).toBe(false);
    expect(readMcpHeaderAnnotations(object({ v: { type: ["string", "object"], "x-mcp-header": "V" } })).ok)
      .toBe(false);
  });

  it("refuses annotations that are not statically reachable through properties", () => {
    const nested = { type: "string", "x-mcp-header": "Deep" };
    const unreachable = {
      items: object({ list: { type: "array", items: object({ v: nested }) } }),
      oneOf: object({}, { oneOf: [object({ v: nested })] }),
      anyOf: object({}, { anyOf: [nested] }),
      allOf: object({}, { allOf: [object({ v: nested })] }),
      not: object({}, { not: object({ v: nested }) }),
      ifThen: object({}, { if: object({ v: nested }), then: object({ v: nested }) }),
      defs: object({ v: { $ref: "#/$defs/d" } }, { $defs: { d: nested } }),
      additional: object({}, { additionalProperties: nested }),
      pattern: object({}, { patternProperties: { "^x": nested } }),
      root: { type: "object", "x-mcp-header": "Root", properties: {} },
    };
    for (const [name, schema] of Object.entries(unreachable)) {
      const reading = readMcpHeaderAnnotations(schema);
      expect(reading.ok, name).toBe(false);
    }
  });

  it("accepts a name made of every tchar", () => {
    const name = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    expect(readMcpHeaderAnnotations(object({ v: { type: "string", "x-mcp-header": name } }))).toEqual({
      ok: true,
      params: [{ name, path: ["v"] }],
    });
  });
});

describe("argumentAt", () => {
  it("follows the property path and gives undefined when a step is missing", () => {
    const args = { a: { b: { c: 1 } }, n: null };
    expect(argumentAt(args, ["a", "b", "c"])).toBe(1);
    expect(argumentAt(args, ["a", "x"])).toBeUndefined();
    expect(argumentAt(args, ["n", "x"])).toBeUndefined();
    expect(argumentAt(args, ["n"])).toBeNull();
    expect(argumentAt(undefined, ["a"])).toBeUndefined();
    expect(argumentAt({ a: [1] }, ["a", "0"])).toBeUndefined();
  });

  it("ignores inherited properties", () => {
    expect(argumentAt({}, ["toString"])).toBeUndefined();
  });
});

describe("screenTools", () => {
  it("keeps valid tools with their parameters, in order, and drops invalid ones with a reason naming them", () => {
    const tools = [
      { name: "valid_tool", inputSchema: object({ region: { type: "string", "x-mcp-header": "Region" } }) },
      {
        name: "invalid_empty_header",
        inputSchema: object({ value: { type: "string", "x-mcp-header": "" } }),
      },
      { name: "plain", inputSchema: object({ q: { type: "string" } }) },
      {
        name: "invalid_duplicate",
        inputSchema: object({
          a: { type: "string", "x-mcp-header": "A" },
          b: { type: "string", "x-mcp-header": "a" },
        }),
      },
    ];
    const screening = screenTools(tools);
    expect(screening.tools.map((t) => t.name)).toEqual(["valid_tool", "plain"]);
    expect(screening.paramHeaders).toEqual(
      new Map([
        ["valid_tool", [{ name: "Region", path: ["region"] }]],
        ["plain", []],
      ]),
    );
    expect(screening.rejected.map((r) => r.name)).toEqual(["invalid_empty_header", "invalid_duplicate"]);
    expect(screening.rejected[0]!.reason).toMatch(/must not be empty/);
  });

  it("passes a tool without a name or schema through", () => {
    const screening = screenTools([{ inputSchema: object({}) }, { name: "bare" }]);
    expect(screening.tools).toHaveLength(2);
    expect([...screening.paramHeaders.keys()]).toEqual(["bare"]);
  });
});
