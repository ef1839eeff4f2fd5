// Peer text is quoted bounded in every message the client builds (issue 25.17): a million bogus
// versions in server/discover, a 1 MB protocolVersion in initialize.
import { describe, expect, it } from "vitest";
import {
  classifyProbeError,
  classifyProbeResult,
  parseInitializeResult,
  quoteVersions,
} from "../../../src/client/probe_classifier.ts";
import { JsonRpcError } from "../../../src/wire/errors.ts";

const MANY = Array.from({ length: 1_000_000 }, (_, i) => `bogus-${i}`);

describe("peer text in negotiation messages", () => {
  it("a version list is quoted to its first 12 entries and a count; a short one reads as JSON", () => {
    expect(quoteVersions(["2025-06-18", "2025-03-26"])).toBe('["2025-06-18","2025-03-26"]');
    const quoted = quoteVersions(MANY);
    expect(quoted).toContain('"bogus-11",… 999988 more]');
    expect(quoted.length).toBeLessThan(300);
    expect(quoteVersions(["x".repeat(100_000)]).length).toBeLessThan(80);
  });

  it("server/discover listing a million versions gives a detail under 1 KB", () => {
    const verdict = classifyProbeResult({
      supportedVersions: MANY,
      capabilities: {},
      serverInfo: { name: "s", version: "1" },
    });
    expect(verdict.kind).toBe("legacy");
    expect((verdict as { detail: string }).detail.length).toBeLessThan(1_000);
    const error = new JsonRpcError(-32022, "Unsupported", {
      supported: ["2025-06-18", ...MANY.map(() => "2025-06-18")],
    });
    const legacy = classifyProbeError(error, true) as { detail: string };
    expect(legacy.detail.length).toBeLessThan(1_000);
  });

  it("a 1 MB protocolVersion in initialize is quoted to 100 characters", () => {
    const reason = parseInitializeResult({ protocolVersion: "v".repeat(1_000_000), capabilities: {} });
    expect(typeof reason).toBe("string");
    expect((reason as string).length).toBeLessThan(400);
    expect(reason).toContain("(1000000 characters)");
  });
});
