import { describe, expect, it } from "vitest";
import { formatBearerChallenge, parseBearerChallenge } from "../../../src/auth/mod.ts";

describe("parseBearerChallenge", () => {
  it("reads resource_metadata, scope and error from quoted and bare values", () => {
    const challenge = parseBearerChallenge(
      'Bearer error=insufficient_scope, scope="files:read files:write", resource_metadata="https://x.example/.well-known/oauth-protected-resource/mcp"',
    );
    expect(challenge).toMatchObject({
      error: "insufficient_scope",
      scope: "files:read files:write",
      resourceMetadata: "https://x.example/.well-known/oauth-protected-resource/mcp",
    });
  });

  it("finds the Bearer challenge among others, case-insensitively, with commas and escapes inside quotes", () => {
    const challenge = parseBearerChallenge(
      'Basic realm="a, b", bearer realm="x", error_description="say \\"hi\\", then go", scope="s"',
    );
    expect(challenge?.errorDescription).toBe('say "hi", then go');
    expect(challenge?.scope).toBe("s");
    expect(challenge?.params.realm).toBe("x");
  });

  it("returns undefined without a Bearer challenge, and an empty challenge for a bare Bearer", () => {
    expect(parseBearerChallenge('Basic realm="x"')).toBeUndefined();
    expect(parseBearerChallenge(null)).toBeUndefined();
    expect(parseBearerChallenge("Bearer")).toEqual({ params: {} });
  });

  it("does not mistake a token68 of another scheme for parameters", () => {
    expect(parseBearerChallenge('Negotiate abc123==, Bearer scope="a"')?.scope).toBe("a");
  });
});

describe("formatBearerChallenge", () => {
  it("writes the parameters quoted and escaped, and round-trips through the parser", () => {
    const header = formatBearerChallenge({
      error: "insufficient_scope",
      scope: "a b",
      resourceMetadata: "https://x/y",
      errorDescription: 'needs "a"',
    });
    expect(header).toBe(
      'Bearer error="insufficient_scope", error_description="needs \\"a\\"", scope="a b", resource_metadata="https://x/y"',
    );
    expect(parseBearerChallenge(header)).toMatchObject({
      error: "insufficient_scope",
      scope: "a b",
      resourceMetadata: "https://x/y",
      errorDescription: 'needs "a"',
    });
  });
});
