import { describe, expect, it } from "vitest";
import { JsonRpcError } from "../../../src/wire/errors.ts";
import { classifyProbeError, classifyProbeResult } from "../../../src/client/probe_classifier.ts";

const err = (code: number, data?: unknown) => new JsonRpcError(code, "m", data);

describe("probe classifier", () => {
  it("DiscoverResult shapes", () => {
    expect(
      classifyProbeResult({
        resultType: "complete",
        supportedVersions: ["2026-07-28"],
        capabilities: {},
        ttlMs: 0,
        cacheScope: "private",
      }).kind,
    ).toBe("modern");
    expect(
      classifyProbeResult({
        supportedVersions: ["2026-07-28"],
        capabilities: {},
        serverInfo: { name: "a", version: "1" },
      }),
    ).toMatchObject({
      kind: "modern",
      discover: { serverInfo: { name: "a", version: "1" } },
    });
    expect(classifyProbeResult({ supportedVersions: ["2025-11-25", "2024-11-05"], capabilities: {} }))
      .toMatchObject({
        outcome: "legacy_only_versions",
        learn: true,
        legacyVersions: ["2024-11-05", "2025-11-25"],
      });
    expect(classifyProbeResult({ supportedVersions: [], capabilities: {} })).toMatchObject({
      outcome: "fallback_no_shared_version",
      learn: false,
    });
    expect(classifyProbeResult({ supportedVersions: ["2025-11-25", "2099-01-01"], capabilities: {} }))
      .toMatchObject({ outcome: "fallback_no_shared_version" });
  });

  it("malformed results", () => {
    for (
      const bad of [
        null,
        "x",
        [],
        {},
        { supportedVersions: "2026-07-28", capabilities: {} },
        { supportedVersions: [1], capabilities: {} },
        { supportedVersions: ["2026-07-28"] },
        { supportedVersions: ["2026-07-28"], capabilities: {}, resultType: "input_required" },
      ]
    ) {
      expect(classifyProbeResult(bad)).toMatchObject({ outcome: "fallback_malformed", learn: false });
    }
  });

  it("errors", () => {
    expect(classifyProbeError(err(-32022, { supported: ["2026-07-28"] }), true)).toEqual({
      kind: "reprobe",
      version: "2026-07-28",
    });
    expect(classifyProbeError(err(-32022, { supported: ["2026-07-28"] }), false)).toMatchObject({
      outcome: "fallback_rpc_error",
      learn: false,
    });
    expect(classifyProbeError(err(-32022, { supported: ["2025-06-18"] }), true)).toMatchObject({
      outcome: "legacy_only_versions",
      learn: true,
    });
    expect(classifyProbeError(err(-32022), true)).toMatchObject({
      outcome: "fallback_rpc_error",
      learn: false,
    });
    expect(classifyProbeError(err(-32601), true)).toMatchObject({
      outcome: "definitive_rejection",
      learn: true,
    });
    expect(classifyProbeError(err(-32602), true)).toMatchObject({
      outcome: "definitive_rejection",
      learn: true,
    });
    for (const code of [-32603, -32600, -32000, -32001, -32004, -32021, 0]) {
      expect(classifyProbeError(err(code, { supported: ["2026-07-28"] }), true)).toMatchObject({
        outcome: "fallback_rpc_error",
        learn: false,
      });
    }
  });
});
