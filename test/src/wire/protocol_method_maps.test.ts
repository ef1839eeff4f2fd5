import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  CLIENT_NOTIFICATION_METHODS,
  CLIENT_REQUEST_METHODS,
  LEGACY_CLIENT_NOTIFICATION_METHODS,
  LEGACY_CLIENT_REQUEST_METHODS,
  LEGACY_SERVER_NOTIFICATION_METHODS,
  LEGACY_SERVER_REQUEST_METHODS,
  MODERN_CLIENT_NOTIFICATION_METHODS,
  MODERN_CLIENT_REQUEST_METHODS,
  MODERN_INPUT_REQUEST_METHODS,
  MODERN_SERVER_NOTIFICATION_METHODS,
  SERVER_NOTIFICATION_METHODS,
  SERVER_REQUEST_METHODS,
} from "../../../src/wire/protocol/mod.ts";

const root = join(import.meta.dirname, "../../..");
const generator = join(root, "scripts/generate_protocol_types.mjs");
const legacySource = readFileSync(join(root, "src/wire/protocol/v2025_11_25.ts"), "utf8");
const modernSource = readFileSync(join(root, "src/wire/protocol/v2026_07_28.ts"), "utf8");

/** `method` literal of every interface in a schema file, read independently of the generator. */
function methodsByInterface(source: string): Map<string, string> {
  const found = new Map<string, string>();
  const pattern = /^export interface (\w+)[^{]*\{(?:\}$|([\s\S]*?)^\})/gm;
  for (const match of source.matchAll(pattern)) {
    const method = /^ {2}method: "([^"]+)";$/m.exec(match[2] ?? "");
    if (method) found.set(match[1]!, method[1]!);
  }
  return found;
}

/** The methods of a union such as `export type ClientRequest = | A | B;`, in order. */
function unionMethods(source: string, union: string): string[] {
  const declaration = new RegExp(`^export type ${union} =([^;]*);`, "m").exec(source);
  if (!declaration) throw new Error(`No union ${union}`);
  const methods = methodsByInterface(source);
  return declaration[1]!
    .split("|")
    .map((name) => name.trim())
    .filter(Boolean)
    .map((name) => {
      const method = methods.get(name);
      if (method === undefined) throw new Error(`No method literal on ${name}`);
      return method;
    });
}

describe("protocol method lists", () => {
  it.each(
    [
      ["2025-11-25 ClientRequest", legacySource, "ClientRequest", LEGACY_CLIENT_REQUEST_METHODS],
      ["2025-11-25 ServerRequest", legacySource, "ServerRequest", LEGACY_SERVER_REQUEST_METHODS],
      [
        "2025-11-25 ClientNotification",
        legacySource,
        "ClientNotification",
        LEGACY_CLIENT_NOTIFICATION_METHODS,
      ],
      [
        "2025-11-25 ServerNotification",
        legacySource,
        "ServerNotification",
        LEGACY_SERVER_NOTIFICATION_METHODS,
      ],
      ["2026-07-28 ClientRequest", modernSource, "ClientRequest", MODERN_CLIENT_REQUEST_METHODS],
      ["2026-07-28 InputRequest", modernSource, "InputRequest", MODERN_INPUT_REQUEST_METHODS],
      [
        "2026-07-28 ClientNotification",
        modernSource,
        "ClientNotification",
        MODERN_CLIENT_NOTIFICATION_METHODS,
      ],
      [
        "2026-07-28 ServerNotification",
        modernSource,
        "ServerNotification",
        MODERN_SERVER_NOTIFICATION_METHODS,
      ],
    ] as const,
  )("the %s list holds exactly the methods of that schema union, in its order", (_, source, union, list) => {
    expect([...list]).toEqual(unionMethods(source, union));
  });

  it("every method literal of each revision's schema is in one of that revision's lists", () => {
    const legacy = new Set<string>([
      ...LEGACY_CLIENT_REQUEST_METHODS,
      ...LEGACY_SERVER_REQUEST_METHODS,
      ...LEGACY_CLIENT_NOTIFICATION_METHODS,
      ...LEGACY_SERVER_NOTIFICATION_METHODS,
    ]);
    const modern = new Set<string>([
      ...MODERN_CLIENT_REQUEST_METHODS,
      ...MODERN_INPUT_REQUEST_METHODS,
      ...MODERN_CLIENT_NOTIFICATION_METHODS,
      ...MODERN_SERVER_NOTIFICATION_METHODS,
    ]);
    const legacyLiterals = [...methodsByInterface(legacySource).values()];
    const modernLiterals = [...methodsByInterface(modernSource).values()];
    expect(legacyLiterals.length).toBeGreaterThan(25);
    expect(modernLiterals.length).toBeGreaterThan(15);
    expect(legacyLiterals.filter((method) => !legacy.has(method))).toEqual([]);
    expect(modernLiterals.filter((method) => !modern.has(method))).toEqual([]);
  });

  it.each(
    [
      [
        "client requests",
        CLIENT_REQUEST_METHODS,
        LEGACY_CLIENT_REQUEST_METHODS,
        MODERN_CLIENT_REQUEST_METHODS,
      ],
      [
        "server requests",
        SERVER_REQUEST_METHODS,
        LEGACY_SERVER_REQUEST_METHODS,
        MODERN_INPUT_REQUEST_METHODS,
      ],
      [
        "client notifications",
        CLIENT_NOTIFICATION_METHODS,
        LEGACY_CLIENT_NOTIFICATION_METHODS,
        MODERN_CLIENT_NOTIFICATION_METHODS,
      ],
      [
        "server notifications",
        SERVER_NOTIFICATION_METHODS,
        LEGACY_SERVER_NOTIFICATION_METHODS,
        MODERN_SERVER_NOTIFICATION_METHODS,
      ],
    ] as const,
  )(
    "the merged %s list is both eras' methods, each once, legacy order first",
    (_, merged, legacy, modern) => {
      expect(new Set(merged).size).toBe(merged.length);
      expect([...merged]).toEqual([...new Set<string>([...legacy, ...modern])]);
      expect(Object.isFrozen(merged)).toBe(true);
    },
  );

  it("puts the era-only methods where the wire contract says", () => {
    for (
      const method of [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
      ]
    ) {
      expect(LEGACY_CLIENT_REQUEST_METHODS).toContain(method);
      expect(MODERN_CLIENT_REQUEST_METHODS).not.toContain(method);
    }
    for (const method of ["server/discover", "subscriptions/listen"]) {
      expect(MODERN_CLIENT_REQUEST_METHODS).toContain(method);
      expect(LEGACY_CLIENT_REQUEST_METHODS).not.toContain(method);
    }
    expect([...MODERN_CLIENT_NOTIFICATION_METHODS]).toEqual(["notifications/cancelled"]);
    expect([...MODERN_INPUT_REQUEST_METHODS].sort()).toEqual([
      "elicitation/create",
      "roots/list",
      "sampling/createMessage",
    ]);
    expect(SERVER_REQUEST_METHODS).toEqual(
      expect.arrayContaining(["ping", "sampling/createMessage", "elicitation/create", "roots/list"]),
    );
    expect(SERVER_NOTIFICATION_METHODS).toContain("notifications/subscriptions/acknowledged");
    expect(LEGACY_SERVER_NOTIFICATION_METHODS).not.toContain("notifications/subscriptions/acknowledged");
  });
});

/** Text outside comments and string literals. */
function code(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, " ").replace(/\/\/.*$/gm, "").replace(
    /"(?:[^"\\\n]|\\.)*"/g,
    '""',
  );
}

describe("generated protocol files", () => {
  it.each([
    ["v2025_11_25.ts", legacySource, "2025-11-25"],
    ["v2026_07_28.ts", modernSource, "2026-07-28"],
  ])("%s names its source, commit and license, and has no `any`", (_, source, version) => {
    expect(source).toContain(
      `Source: schema/${version}/schema.ts of https://github.com/modelcontextprotocol/modelcontextprotocol`,
    );
    expect(source).toMatch(/at commit [0-9a-f]{40}\./);
    expect(source).toContain("Licensed under the MIT License");
    expect(source).toContain(`export const LATEST_PROTOCOL_VERSION = "${version}";`);
    expect(code(source)).not.toMatch(/\bany\b/);
    expect(source).not.toContain("@includeCode");
  });
});

describe("scripts/generate_protocol_types.mjs", () => {
  const work = mkdtempSync(join(tmpdir(), "protocol-types-"));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  const base = (version: string) =>
    `/* JSON-RPC types */
/** @internal */
export const LATEST_PROTOCOL_VERSION = "${version}";
/** @internal */
export const JSONRPC_VERSION = "2.0";
/**
 * A name and version.
 *
 * @example Small
 * {@includeCode ./examples/Implementation/small.json}
 *
 * @see [General fields](/specification/${version}/basic/index#meta)
 */
export interface Implementation {
  name: string;
  version: string;
}
/** @internal */
export interface Request {
  method: string;
  // Allow unofficial extensions of \`Request.params\` without impacting \`RequestParams\`.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  params?: { [key: string]: any };
}
/** @internal */
export interface Notification {
  method: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  params?: { [key: string]: any };
}
export interface Result {
  [key: string]: unknown;
}
export type EmptyResult = Result;
export interface CancelledNotification extends Notification {
  method: "notifications/cancelled";
  params: { requestId: string };
}
export type ClientNotification = CancelledNotification;
export type ServerNotification = CancelledNotification;
`;
  const legacyFake = `${base("2025-11-25")}
export interface PingRequest extends Request {
  method: "ping";
  params?: { _meta?: { [key: string]: unknown } };
}
export interface EchoRequest extends Request {
  method: "echo";
  params: EchoParams;
}
export interface EchoParams {
  text: string;
}
export interface EchoResult extends Result {
  text: string;
}
export type ClientRequest = PingRequest | EchoRequest;
export type ServerRequest = PingRequest;
`;
  const modernFake = `${base("2026-07-28")}
export interface EchoRequest extends Request {
  method: "echo";
  params: EchoParams;
}
export interface EchoParams {
  text: string;
  loud?: boolean;
}
export interface EchoResult extends Result {
  text: string;
}
export interface EchoResultResponse {
  result: EchoResult;
}
export interface AskRequest {
  method: "ask";
  params: { question: string };
}
export type ClientRequest = EchoRequest;
export type InputRequest = AskRequest;
`;

  function writeSpec(name: string, legacy: string, modern: string): string {
    const spec = join(work, name);
    for (const [version, text] of [["2025-11-25", legacy], ["2026-07-28", modern]] as const) {
      mkdirSync(join(spec, "schema", version), { recursive: true });
      writeFileSync(join(spec, "schema", version, "schema.ts"), text);
    }
    return spec;
  }

  it("turns a schema checkout into the revision files, the shared view, the era maps and the equality check", () => {
    const spec = writeSpec("spec-ok", legacyFake, modernFake);
    const out = join(work, "out-ok");
    execFileSync(process.execPath, [
      generator,
      spec,
      "--commit",
      "0123456789abcdef0123456789abcdef01234567",
      "--out",
      out,
    ], { stdio: "pipe" });
    const legacy = readFileSync(join(out, "src/wire/protocol/v2025_11_25.ts"), "utf8");
    expect(legacy).toContain("at commit 0123456789abcdef0123456789abcdef01234567.");
    expect(legacy).toContain("params?: object;");
    expect(legacy).not.toContain("eslint-disable");
    expect(legacy).toContain(
      "[General fields](https://modelcontextprotocol.io/specification/2025-11-25/basic/index#meta)",
    );
    expect(legacy).toContain(
      " * Example (Small): {@link https://github.com/modelcontextprotocol/modelcontextprotocol/blob/0123456789abcdef0123456789abcdef01234567/schema/2025-11-25/examples/Implementation/small.json}",
    );
    const current = readFileSync(join(out, "src/wire/protocol/current.ts"), "utf8");
    // Same text in both fakes: shared (constants excepted). EchoParams differs, so EchoRequest, which uses it, and
    // ClientRequest, which uses EchoRequest, are not shared either.
    const shared = /export type \{\n([^}]*)\}/.exec(current)?.[1]?.split(/[\s,]+/).filter(Boolean);
    expect(shared).toEqual([
      "CancelledNotification",
      "ClientNotification",
      "EchoResult",
      "EmptyResult",
      "Implementation",
      "Notification",
      "Request",
      "Result",
      "ServerNotification",
    ]);
    const maps = readFileSync(join(out, "src/wire/protocol/era_method_maps.ts"), "utf8");
    expect(maps).toContain(
      '"ping": { params: NonNullable<L.PingRequest["params"]>; result: L.EmptyResult };',
    );
    expect(maps).toContain('"echo": { params: L.EchoParams; result: L.EchoResult };');
    expect(maps).toContain('"echo": { params: M.EchoParams; result: M.EchoResultResponse["result"] };');
    expect(maps).toContain('"ask": { params: NonNullable<M.AskRequest["params"]>; result: M.EmptyResult };');
    expect(maps).toMatch(
      /export const LEGACY_CLIENT_REQUEST_METHODS = \[\n {2}"ping",\n {2}"echo",\n\] as const/,
    );
  });

  it("fails without writing half a result when a union member has no method", () => {
    const broken = legacyFake.replace(
      "export type ServerRequest = PingRequest;",
      "export type ServerRequest = PingRequest | Implementation;",
    );
    const spec = writeSpec("spec-broken", broken, modernFake);
    const run = spawnSync(process.execPath, [generator, spec, "--out", join(work, "out-broken")], {
      encoding: "utf8",
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("Implementation has no method literal");
    expect(existsSync(join(work, "out-broken"))).toBe(false);
  });

  it("fails when the schema's open params no longer use `any` the known way", () => {
    const spec = writeSpec(
      "spec-changed",
      legacyFake.replace("params?: { [key: string]: any };", "params?: object;"),
      modernFake,
    );
    const run = spawnSync(process.execPath, [generator, spec, "--out", join(work, "out-changed")], {
      encoding: "utf8",
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("expected 2 open params with `any`, found 1");
  });
});
