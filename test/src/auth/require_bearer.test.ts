import { describe, expect, it } from "vitest";
import {
  type AccessTokenInfo,
  getAuthInfo,
  parseBearerChallenge,
  requireBearer,
} from "../../../src/auth/mod.ts";

const RESOURCE = "https://mcp.example.com/mcp";
const PRM_URL = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";
const tokens: Record<string, AccessTokenInfo> = {
  basic: { scopes: ["mcp:basic"], subject: "alice" },
  writer: { scopes: ["mcp:basic", "mcp:write"], subject: "bob" },
};

function protect(seen: AccessTokenInfo[] = []) {
  return requireBearer(
    (request) => {
      const info = getAuthInfo(request);
      if (info !== undefined) seen.push(info);
      return new Response("handled");
    },
    {
      verify: (token) => tokens[token],
      metadata: {
        resource: RESOURCE,
        authorization_servers: ["https://auth.example.com"],
        scopes_supported: ["mcp:basic"],
      },
      scopes: ["mcp:basic"],
      scopesFor: (
        call,
      ) => (call.method === "tools/call" && call.name === "write" ? ["mcp:write"] : undefined),
    },
  );
}

function post(token: string | undefined, body: unknown): Request {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  return new Request(RESOURCE, { method: "POST", headers, body: JSON.stringify(body) });
}

describe("requireBearer", () => {
  it("answers a request without a token 401 with resource_metadata and the required scope", async () => {
    const response = await protect()(post(undefined, { jsonrpc: "2.0", id: 1, method: "tools/list" }));
    expect(response.status).toBe(401);
    const challenge = parseBearerChallenge(response.headers.get("www-authenticate"));
    expect(challenge).toMatchObject({ resourceMetadata: PRM_URL, scope: "mcp:basic" });
    expect(challenge?.error).toBeUndefined();
  });

  it("answers an unknown token 401 invalid_token, and never reads a token from the query string", async () => {
    const invalid = await protect()(post("forged", { jsonrpc: "2.0", id: 1, method: "tools/list" }));
    expect(invalid.status).toBe(401);
    expect(parseBearerChallenge(invalid.headers.get("www-authenticate"))?.error).toBe("invalid_token");
    const query = await protect()(
      new Request(`${RESOURCE}?access_token=basic`, { method: "POST", body: "{}" }),
    );
    expect(query.status).toBe(401);
  });

  it("passes a valid token to the handler with its information", async () => {
    const seen: AccessTokenInfo[] = [];
    const response = await protect(seen)(post("basic", { jsonrpc: "2.0", id: 1, method: "tools/list" }));
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("handled");
    expect(seen).toEqual([tokens.basic]);
  });

  it("answers a tool call needing more scope 403 insufficient_scope naming every scope the call needs", async () => {
    const response = await protect()(
      post("basic", { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "write" } }),
    );
    expect(response.status).toBe(403);
    expect(parseBearerChallenge(response.headers.get("www-authenticate"))).toMatchObject({
      error: "insufficient_scope",
      scope: "mcp:basic mcp:write",
      resourceMetadata: PRM_URL,
    });
    const allowed = await protect()(
      post("writer", { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "write" } }),
    );
    expect(allowed.status).toBe(200);
  });

  it("answers a body over maxBodyBytes 413 before the handler, so no call escapes its scope check; a body at the cap passes", async () => {
    const body = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "write", pad: "" } };
    const size = JSON.stringify(body).length;
    const handler = requireBearer(() => new Response("handled"), {
      verify: (t) => tokens[t],
      scopesFor: () => undefined,
      maxBodyBytes: size + 10,
    });
    expect((await handler(post("basic", { ...body, params: { name: "write", pad: "x".repeat(11) } }))).status)
      .toBe(413);
    expect((await handler(post("basic", { ...body, params: { name: "write", pad: "x".repeat(10) } }))).status)
      .toBe(200);
  });

  it("lets the handler read the body after the scope check read it", async () => {
    const handler = requireBearer(async (request) => Response.json(await request.json()), {
      verify: (t) => tokens[t],
      scopesFor: () => undefined,
    });
    const response = await handler(post("basic", { jsonrpc: "2.0", id: 7, method: "tools/list" }));
    expect(await response.json()).toEqual({ jsonrpc: "2.0", id: 7, method: "tools/list" });
  });

  it("lets a CORS preflight through to the handler without a token", async () => {
    const response = await protect()(
      new Request(RESOURCE, { method: "OPTIONS", headers: { origin: "https://app.example.com" } }),
    );
    expect(await response.text()).toBe("handled");
  });

  it("serves the Protected Resource Metadata without a token, at the RFC 9728 path of the resource", async () => {
    const response = await protect()(new Request(PRM_URL));
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(await response.json()).toEqual({
      resource: RESOURCE,
      authorization_servers: ["https://auth.example.com"],
      scopes_supported: ["mcp:basic"],
    });
  });
});
