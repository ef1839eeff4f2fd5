/** The error table of docs/errors.md against the classes src/wire/errors.ts exports. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as errors from "../../../src/wire/errors.ts";
import { ROOT } from "../../fixtures/ours/build_dist.ts";

interface Row {
  className: string;
  code: string | undefined;
  fields: string[];
}

/** Rows of the page's first table: class, code (undefined for "(base)" or "(a number)"), fields. */
function parseErrorTable(markdown: string): Row[] {
  const table = /(?:^\|.*\n)+/m.exec(markdown)?.[0];
  if (!table) throw new Error("docs/errors.md has no table");
  const lines = table.split("\n").filter((line) => line.startsWith("|"));
  const [header, rule, ...rows] = lines;
  expect(header?.replace(/ +/g, " ")).toBe("| class | code | when raised | fields |");
  expect(rule).toMatch(/^\|( ?-+ ?\|){4}$/);
  return rows.map((line) => {
    const cells = line.split("|").slice(1, -1).map((cell) => cell.trim());
    expect(cells, line).toHaveLength(4);
    const [className, code, , fields] = cells as [string, string, string, string];
    return {
      className: className.replace(/`/g, ""),
      code: /^`[a-z0-9_]+`$/.test(code) ? code.slice(1, -1) : undefined,
      fields: [...fields.matchAll(/`(\w+)`/g)].map((m) => m[1]!),
    };
  });
}

/** Every class errors.ts exports: the Error subclasses among its values. */
const exported = Object.entries(errors)
  .filter(([, value]) => typeof value === "function" && value.prototype instanceof Error)
  .map(([name]) => name)
  .sort();

/** The code a TransportError subclass answers `instanceof` for, found through its brand. */
// deno-lint-ignore ban-types
function codeOf(cls: Function): string | undefined {
  const codes: errors.TransportErrorCode[] = [
    "closed",
    "timeout",
    "output_full",
    "message_too_large",
    "parse",
    "invalid_utf8",
    "write_failed",
    "read_failed",
    "process_exited",
    "invalid_option",
    "protocol",
    "cancelled",
    "negotiation_failed",
  ];
  const claimed = codes.filter((code) =>
    cls[Symbol.hasInstance]({ [Symbol.for("onemodelcontext.error")]: code, code })
  );
  return claimed.length === 1 ? claimed[0] : undefined;
}

/** One instance per class, to check the fields the table lists. */
const SAMPLES: Record<string, () => Error> = {
  ClosedError: () => new errors.ClosedError(),
  TimeoutError: () => new errors.TimeoutError("Waited 5 ms", 5),
  OutputFullError: () => new errors.OutputFullError(1),
  MessageTooLargeError: () => new errors.MessageTooLargeError(1),
  ParseError: () => new errors.ParseError("{"),
  InvalidUtf8Error: () => new errors.InvalidUtf8Error(),
  WriteFailedError: () => new errors.WriteFailedError(),
  ReadFailedError: () => new errors.ReadFailedError(),
  ProcessExitedError: () => new errors.ProcessExitedError(1, null, ""),
  InvalidOptionError: () => new errors.InvalidOptionError("Option x must be a number, got NaN"),
  ProtocolError: () => new errors.ProtocolError("Bad"),
  CancelledError: () => new errors.CancelledError("Cancelled"),
  NegotiationFailedError: () => new errors.NegotiationFailedError("No"),
  JsonRpcError: () => new errors.JsonRpcError(-32600, "Invalid request", { x: 1 }),
};

describe("the README error table", () => {
  const rows = parseErrorTable(readFileSync(join(ROOT, "docs/errors.md"), "utf8"));

  it("lists every error class errors.ts exports, and only those", () => {
    expect(rows.map((r) => r.className).sort()).toEqual(exported);
  });

  it("gives each TransportError subclass the code it carries, the base none, JsonRpcError a number", () => {
    for (const row of rows) {
      // deno-lint-ignore ban-types
      const cls = (errors as Record<string, unknown>)[row.className] as Function;
      if (row.className === "TransportError" || row.className === "JsonRpcError") {
        expect(row.code, row.className).toBeUndefined();
      } else {
        expect(row.code, row.className).toBeDefined();
        expect(codeOf(cls), row.className).toBe(row.code);
        expect((SAMPLES[row.className]!() as errors.TransportError).code).toBe(row.code);
      }
    }
    expect(new Set(rows.map((r) => r.code).filter(Boolean)).size).toBe(rows.length - 2); // no code twice
  });

  it("lists the fields each class adds, and each listed field exists", () => {
    const base = new Set(["code", "cause", "message", "name", "stack"]);
    for (const row of rows) {
      if (row.className === "TransportError") {
        expect(row.fields).toEqual(["code", "cause"]);
        continue;
      }
      const sample = SAMPLES[row.className];
      expect(sample, `add a sample of ${row.className} to this test`).toBeDefined();
      const instance = sample!();
      const own = Object.keys(instance).filter((key) => !base.has(key)).sort();
      const listed = row.fields.filter((field) => !base.has(field) || row.className === "JsonRpcError")
        .sort();
      if (row.className === "JsonRpcError") expect(listed).toEqual(["code", "data", "message"]);
      else expect(listed, row.className).toEqual(own);
      for (const field of row.fields) expect(field in instance, `${row.className}.${field}`).toBe(true);
    }
  });

  it("fails on a table that misses a class or names a wrong code", () => {
    const readme = readFileSync(join(ROOT, "docs/errors.md"), "utf8");
    const missing = parseErrorTable(readme.replace(/^\| `CancelledError` .*\n/m, ""));
    expect(missing.map((r) => r.className).sort()).not.toEqual(exported);
    const wrong = parseErrorTable(
      readme.replace(/^\| `ProtocolError` +\| `protocol` /m, "| `ProtocolError` | `closed` "),
    );
    expect(codeOf(errors.ProtocolError)).not.toBe(wrong.find((r) => r.className === "ProtocolError")!.code);
  });
});
