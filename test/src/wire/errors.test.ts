/**
 * The error model: one subclass per code with literal `code` and `name`, `instanceof` that works across
 * two copies of the package (this source tree and a freshly built copy of it), and `asError`.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as Src from "../../../src/mod.ts";
import { asError, isTransportError } from "../../../src/wire/errors.ts";
import { ROOT } from "../../fixtures/ours/build_dist.ts";

type Errors = typeof Src;
const OUT = join(ROOT, ".tmp", `errors-copy-${process.pid}`);
let Built: Errors;

beforeAll(async () => {
  // A second copy of the package, built from these sources the way `npm run build` builds dist/.
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  try {
    execFileSync(process.execPath, [
      join(ROOT, "node_modules/typescript/bin/tsc"),
      "-p",
      "tsconfig.build.json",
      "--outDir",
      OUT,
    ], { cwd: ROOT, stdio: "pipe" });
  } catch (error) {
    // tsc emits even when some other file has a type error (the type check reports those); the import below fails if it did not.
    void error;
  }
  Built = (await import(pathToFileURL(join(OUT, "src/mod.js")).href)) as Errors;
}, 120_000);
afterAll(() => rmSync(OUT, { recursive: true, force: true }));

/** One instance of every subclass, made with the given copy of the package. */
function oneOfEach(E: Errors): Src.AnyTransportError[] {
  return [
    new E.ClosedError(),
    new E.TimeoutError("Waited 5 ms for nothing", 5),
    new E.OutputFullError(1024),
    new E.MessageTooLargeError(16),
    new E.ParseError("{nope"),
    new E.InvalidUtf8Error(),
    new E.WriteFailedError(),
    new E.ReadFailedError(),
    new E.ProcessExitedError(3, null, "boom"),
    new E.InvalidOptionError("Option x must be a number, got NaN"),
    new E.ProtocolError("Reply to unknown request id 7: dropped"),
    new E.CancelledError("Request 1 was cancelled by the peer"),
    new E.NegotiationFailedError("Server rejected initialize"),
  ];
}

const CLASS_BY_CODE = {
  closed: "ClosedError",
  timeout: "TimeoutError",
  output_full: "OutputFullError",
  message_too_large: "MessageTooLargeError",
  parse: "ParseError",
  invalid_utf8: "InvalidUtf8Error",
  write_failed: "WriteFailedError",
  read_failed: "ReadFailedError",
  process_exited: "ProcessExitedError",
  invalid_option: "InvalidOptionError",
  protocol: "ProtocolError",
  cancelled: "CancelledError",
  negotiation_failed: "NegotiationFailedError",
} as const satisfies Record<Src.TransportErrorCode, keyof Errors>;

/** Uses `switch (error.code)` narrowing: each branch reads a field only its subclass has. */
function detail(error: unknown): string {
  if (!(error instanceof Src.TransportError)) return "not ours";
  switch (error.code) {
    case "timeout":
      return `timeout ${error.timeoutMs}`;
    case "process_exited":
      return `exit ${error.exitCode} ${error.signal} ${error.stderrTail}`;
    case "message_too_large":
    case "output_full":
      return `${error.code} ${error.limitBytes}`;
    case "parse":
      return `parse ${error.line}`;
    case "closed":
    case "invalid_utf8":
    case "write_failed":
    case "read_failed":
    case "invalid_option":
    case "protocol":
    case "cancelled":
    case "negotiation_failed":
      return error.name;
    default: {
      const unreachable: never = error;
      return unreachable;
    }
  }
}

describe("the error model", () => {
  it("has one subclass per code, each with its literal code and name, all instances of TransportError and Error", () => {
    const errors = oneOfEach(Src);
    expect(errors.map((e) => e.code).sort()).toEqual(Object.keys(CLASS_BY_CODE).sort());
    for (const error of errors) {
      expect(error.name).toBe(CLASS_BY_CODE[error.code]);
      expect(error).toBeInstanceOf(Src[CLASS_BY_CODE[error.code]]);
      expect(error).toBeInstanceOf(Src.TransportError);
      expect(error).toBeInstanceOf(Error);
      expect(error.message).toMatch(/^[A-Z]/);
    }
  });

  it("answers instanceof of a subclass only for that subclass's code", () => {
    const errors = oneOfEach(Src);
    for (const error of errors) {
      const others = errors.filter((e) => e.code !== error.code);
      for (const other of others) expect(other instanceof Src[CLASS_BY_CODE[error.code]]).toBe(false);
    }
    expect(new Error("plain") instanceof Src.TransportError).toBe(false);
    expect({ code: "timeout" } instanceof Src.TimeoutError).toBe(false);
    expect(new Src.JsonRpcError(-32601, "Method not found: x") instanceof Src.TransportError).toBe(false);
  });

  it("narrows on code after instanceof TransportError", () => {
    expect(oneOfEach(Src).map(detail)).toEqual([
      "ClosedError",
      "timeout 5",
      "output_full 1024",
      "message_too_large 16",
      "parse {nope",
      "InvalidUtf8Error",
      "WriteFailedError",
      "ReadFailedError",
      "exit 3 null boom",
      "InvalidOptionError",
      "ProtocolError",
      "CancelledError",
      "NegotiationFailedError",
    ]);
    expect(detail(new Error("x"))).toBe("not ours");
  });

  it("answers instanceof across two copies of the package, both ways, and narrows on code", () => {
    expect(Built.TimeoutError).not.toBe(Src.TimeoutError); // really two copies
    for (const [mine, theirs] of [[Src, Built], [Built, Src]] as const) {
      const errors = oneOfEach(theirs);
      for (const error of errors) {
        expect(error instanceof mine.TransportError).toBe(true);
        expect(error instanceof mine[CLASS_BY_CODE[error.code]]).toBe(true);
        expect(mine.ClosedError === mine[CLASS_BY_CODE[error.code]] || !(error instanceof mine.ClosedError))
          .toBe(true);
      }
      expect(errors.map(detail)).toEqual(oneOfEach(mine).map(detail));
      const rpc = new theirs.JsonRpcError(-32602, "Invalid params: x", { why: 1 });
      expect(rpc instanceof mine.JsonRpcError).toBe(true);
      expect(rpc instanceof mine.TransportError).toBe(false);
      expect([rpc.code, rpc.message, rpc.data]).toEqual([-32602, "Invalid params: x", { why: 1 }]);
    }
    expect(isTransportError(new Built.ProtocolError("Bad"))).toBe(true);
  });

  it("keeps the ordinary prototype check for a user's own subclass", () => {
    class RetryableTimeout extends Src.TimeoutError {}
    const mine = new RetryableTimeout("Waited 1 ms", 1);
    expect(mine instanceof RetryableTimeout).toBe(true);
    expect(mine instanceof Src.TimeoutError).toBe(true);
    expect(mine instanceof Built.TimeoutError).toBe(true);
    expect(new Src.TimeoutError("Waited 1 ms", 1) instanceof RetryableTimeout).toBe(false);
    class AppRpcError extends Src.JsonRpcError {}
    expect(new Src.JsonRpcError(1, "X") instanceof AppRpcError).toBe(false);
    expect(new AppRpcError(1, "X") instanceof Built.JsonRpcError).toBe(true);
  });

  it("narrows instanceof a JsonRpcError subclass to that subclass (the compiler checks the field read)", () => {
    class ReasonedRpcError extends Src.JsonRpcError {
      readonly reason = "expired" as const;
    }
    const caught: unknown = new ReasonedRpcError(-32602, "Invalid params: expired");
    // Before the `this`-typed hasInstance this narrowed to JsonRpcError, and `.reason` did not compile.
    const reason: "expired" | undefined = caught instanceof ReasonedRpcError ? caught.reason : undefined;
    expect(reason).toBe("expired");
    expect(new Src.JsonRpcError(-32602, "X") instanceof ReasonedRpcError).toBe(false);
  });

  it("keeps cause, and JsonRpcError keeps code, message and data", () => {
    const cause = new Error("disk full");
    expect(new Src.ProtocolError('Era cache set("k") failed: disk full', { cause }).cause).toBe(cause);
    const rpc = new Src.JsonRpcError(-32022, "Unsupported protocol version: 1999-01-01", {
      supported: ["2026-07-28"],
    });
    expect(rpc).toMatchObject({
      name: "JsonRpcError",
      code: -32022,
      message: "Unsupported protocol version: 1999-01-01",
      data: { supported: ["2026-07-28"] },
    });
    expect(new Src.JsonRpcError(-32601, "Method not found: x").data).toBeUndefined();
  });
});

describe("asError", () => {
  it("returns an Error unchanged", () => {
    const error = new Src.ClosedError();
    expect(asError(error)).toBe(error);
    const plain = new TypeError("x");
    expect(asError(plain)).toBe(plain);
  });

  it("wraps anything else in an Error whose message names the value and whose cause is the value", () => {
    const wrapped = asError("socket hang up");
    expect(wrapped).toBeInstanceOf(Error);
    expect(wrapped.message).toBe("socket hang up");
    expect(wrapped.cause).toBe("socket hang up");
    const object = { status: 500 };
    expect(asError(object).cause).toBe(object);
    expect(asError(undefined).message).toBe("undefined");
  });
});

describe("error messages in src/ and adapters/", () => {
  const files = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((
      d,
    ) => (d.isDirectory() ? files(join(dir, d.name)) : d.name.endsWith(".ts") ? [join(dir, d.name)] : []));
  /** `new X("…` for the constructors whose first argument is the message, and `new JsonRpcError(code, "…`. */
  const MESSAGE_FIRST =
    /new (ClosedError|TimeoutError|InvalidOptionError|ProtocolError|CancelledError|NegotiationFailedError|Error|TypeError|RangeError)\(\s*(["'`])(.)/g;
  const MESSAGE_SECOND = /new JsonRpcError\(\s*[^,()]+,\s*(["'`])(.)/g;

  function lowercaseStarts(text: string): string[] {
    const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, ""); // examples in comments do not count
    const found: string[] = [];
    for (const m of code.matchAll(MESSAGE_FIRST)) if (/[a-z]/.test(m[3]!)) found.push(m[0]);
    for (const m of code.matchAll(MESSAGE_SECOND)) if (/[a-z]/.test(m[2]!)) found.push(m[0]);
    return found;
  }

  it("start with a capital letter", () => {
    const offenders = [...files("src"), ...files("adapters")].flatMap((file) =>
      lowercaseStarts(readFileSync(join(ROOT, file), "utf8")).map((hit) => `${file}: ${hit}`)
    );
    expect(offenders).toEqual([]);
  });

  it("are caught by this check when they do not", () => {
    expect(
      lowercaseStarts(
        'throw new ProtocolError(`bad id ${id}`);\nthrow new JsonRpcError(ErrorCodes.InvalidParams, "unknown tool");',
      ),
    ).toHaveLength(2);
    expect(
      lowercaseStarts('/** throw new Error("peer overran"); */\nthrow new ClosedError("The port closed");'),
    ).toEqual([]);
  });
});
