import { describe, expect, it } from "vitest";
import { buildDiscoverResult, parseDiscoverResult } from "../../../src/wire/discover_result.ts";
import {
  buildRequestMeta,
  decorateModernResult,
  hasEnvelopeClaim,
  progressTokenOf,
  readRequestEnvelope,
  serverInfoOf,
  withRequestEnvelope,
} from "../../../src/wire/meta_envelope.ts";
import { MetaKeys } from "../../../src/wire/protocol_versions.ts";
import { ServerVersions } from "../../../src/wire/server_versions.ts";

const ENV = {
  protocolVersion: "2026-07-28",
  clientCapabilities: { elicitation: {} },
  clientInfo: { name: "c", version: "1" },
};
const SERVER = { name: "s", version: "2" };

describe("meta envelope", () => {
  it("round-trips an envelope through withRequestEnvelope and readRequestEnvelope, keeping other params and _meta keys", () => {
    const params = withRequestEnvelope({ cursor: "2", _meta: { progressToken: 5 } }, {
      ...ENV,
      logLevel: "debug",
    });
    expect(params).toEqual({
      cursor: "2",
      _meta: {
        progressToken: 5,
        [MetaKeys.protocolVersion]: "2026-07-28",
        [MetaKeys.clientCapabilities]: { elicitation: {} },
        [MetaKeys.clientInfo]: { name: "c", version: "1" },
        [MetaKeys.logLevel]: "debug",
      },
    });
    expect(readRequestEnvelope(params)).toEqual({
      kind: "envelope",
      envelope: { ...ENV, logLevel: "debug" },
    });
    expect(progressTokenOf(params)).toBe(5);
  });

  it("lets the envelope keys win over same-named extra keys", () => {
    expect(buildRequestMeta(ENV, { [MetaKeys.protocolVersion]: "old" })[MetaKeys.protocolVersion]).toBe(
      "2026-07-28",
    );
  });

  it("sees no claim without the envelope keys; a bare progressToken is no claim", () => {
    for (const params of [undefined, null, [], "x", {}, { _meta: {} }, { _meta: { progressToken: 1 } }]) {
      expect(hasEnvelopeClaim(params)).toBe(false);
      expect(readRequestEnvelope(params)).toEqual({ kind: "none" });
    }
  });

  it("reports a malformed claim, keeping a readable version for a -32022 check", () => {
    const reading = readRequestEnvelope({ _meta: { [MetaKeys.protocolVersion]: "2099-01-01" } });
    expect(reading).toMatchObject({ kind: "malformed", protocolVersion: "2099-01-01" });
    expect(
      readRequestEnvelope({ _meta: { [MetaKeys.protocolVersion]: "", [MetaKeys.clientCapabilities]: {} } }),
    ).toMatchObject({ kind: "malformed", protocolVersion: undefined });
    expect(readRequestEnvelope({ _meta: 3 })).toMatchObject({ kind: "malformed" });
  });

  it("decorates a modern result without overwriting what the handler set", () => {
    expect(decorateModernResult(undefined, SERVER)).toEqual({
      resultType: "complete",
      _meta: { [MetaKeys.serverInfo]: SERVER },
    });
    expect(
      decorateModernResult({
        resultType: "input_required",
        _meta: { [MetaKeys.serverInfo]: { name: "o", version: "0" } },
      }, SERVER),
    ).toEqual({
      resultType: "input_required",
      _meta: { [MetaKeys.serverInfo]: { name: "o", version: "0" } },
    });
    expect(decorateModernResult([1], SERVER)).toEqual([1]);
    expect(serverInfoOf(decorateModernResult({}, SERVER))).toEqual(SERVER);
  });
});

describe("discover result", () => {
  it("builds the 2026-07-28 shape and parses it back", () => {
    const built = buildDiscoverResult({
      serverInfo: SERVER,
      supportedVersions: ["2026-07-28"],
      capabilities: {},
      ttlMs: 10,
      cacheScope: "public",
    });
    expect(built).toEqual({
      resultType: "complete",
      supportedVersions: ["2026-07-28"],
      capabilities: {},
      ttlMs: 10,
      cacheScope: "public",
      _meta: { [MetaKeys.serverInfo]: SERVER },
    });
    expect(parseDiscoverResult(built)).toEqual({
      supportedVersions: ["2026-07-28"],
      capabilities: {},
      serverInfo: SERVER,
      ttlMs: 10,
      cacheScope: "public",
    });
  });

  it("accepts the older shape with a top-level serverInfo and no cache fields", () => {
    expect(
      parseDiscoverResult({
        supportedVersions: ["2026-07-28"],
        capabilities: { tools: {} },
        serverInfo: SERVER,
      }),
    ).toEqual({
      supportedVersions: ["2026-07-28"],
      capabilities: { tools: {} },
      serverInfo: SERVER,
    });
  });

  it("refuses malformed results", () => {
    for (
      const bad of [
        null,
        {},
        { supportedVersions: "2026-07-28", capabilities: {} },
        { supportedVersions: [1], capabilities: {} },
        { supportedVersions: [] },
        { resultType: "input_required", supportedVersions: [], capabilities: {} },
      ]
    ) {
      expect(parseDiscoverResult(bad)).toBeUndefined();
    }
  });
});

describe("server versions", () => {
  it("negotiates legacy versions: echo, else the newest legacy one", () => {
    const versions = new ServerVersions();
    expect(versions.negotiateLegacy("2024-11-05")).toBe("2024-11-05");
    expect(versions.negotiateLegacy("2026-07-28")).toBe("2025-11-25");
    expect(versions.negotiateLegacy("garbage")).toBe("2025-11-25");
  });

  it("advertises the modern versions, or the legacy ones for a legacy-only server", () => {
    expect(new ServerVersions().advertised).toEqual(["2026-07-28"]);
    expect(new ServerVersions(["2024-11-05", "2025-03-26"]).advertised).toEqual(["2025-03-26", "2024-11-05"]);
    const error = new ServerVersions(["2026-07-28"]).unsupported("2025-06-18");
    expect(error.code).toBe(-32022);
    expect(error.data).toEqual({ supported: ["2026-07-28"], requested: "2025-06-18" });
  });
});
