/**
 * requireBearer in front of the real HTTP handler and ContextServer, driven by withOAuth: the full
 * authorization flow, per-tool step-up, and both eras behind one bearer check.
 */
import { describe, expect, it } from "vitest";
import { getAuthInfo, requireBearer, withOAuth } from "../../../src/auth/mod.ts";
import { ContextClient } from "../../../src/client/context_client.ts";
import { httpTransport } from "../../../src/http/client/http_client_transport.ts";
import { createHttpHandler } from "../../../src/http/server/create_http_handler.ts";
import { ContextServer } from "../../../src/server/context_server.ts";
import { json, legacyPost, modernRequest, rpc, URL_ } from "../http/server/http_handler_helpers.ts";
import { AuthServerFixture, autoApprove, routeFetch } from "./oauth_fixtures.ts";

const AS = "http://127.0.0.1:9101";

function protectedServer() {
  const as = new AuthServerFixture({ origin: AS });
  const mcp = new ContextServer({ name: "protected", version: "1.0.0", capabilities: { tools: {} } });
  mcp.handle("tools/list", () => ({ tools: [] }));
  mcp.handle(
    "tools/call",
    (params: { name: string }) => ({ content: [{ type: "text", text: `ran ${params.name}` }] }),
  );
  const subjects: (string | undefined)[] = [];
  const http = createHttpHandler(mcp, { keepAliveInterval: 0 });
  const handler = requireBearer(
    (request) => {
      subjects.push(getAuthInfo(request)?.clientId);
      return http(request);
    },
    {
      verify: (token) => as.verifierFor(URL_)(token),
      metadata: { resource: URL_, authorization_servers: [AS], scopes_supported: ["mcp:basic"] },
      scopes: ["mcp:basic"],
      scopesFor: (
        call,
      ) => (call.method === "tools/call" && call.name === "write" ? ["mcp:write"] : undefined),
    },
  );
  const fetch = routeFetch({ [AS]: as.handler, [new URL(URL_).origin]: handler });
  const authFetch = withOAuth(fetch, {
    redirectUri: "http://127.0.0.1:7777/callback",
    redirectTo: autoApprove(fetch),
  });
  return { as, authFetch, subjects };
}

describe("requireBearer over createHttpHandler, with withOAuth", () => {
  it("authorizes a modern client on its first request and serves it, the handler seeing the token's client", async () => {
    const { as, authFetch, subjects } = protectedServer();
    const discover = await authFetch(modernRequest(1, "server/discover"));
    expect(discover.status).toBe(200);
    expect(await json(discover)).toMatchObject({ id: 1, result: { resultType: "complete" } });
    expect(as.authorizations[0]?.get("scope")).toBe("mcp:basic");
    expect(as.authorizations[0]?.get("resource")).toBe(URL_);
    expect(subjects).toEqual([as.authorizations[0]?.get("client_id")]);
  });

  it("steps up for a tool that needs more scope, and the call then runs", async () => {
    const { as, authFetch } = protectedServer();
    await authFetch(modernRequest(1, "tools/list"));
    const call = await authFetch(modernRequest(2, "tools/call", { name: "write", arguments: {} }));
    expect(await json(call)).toMatchObject({ id: 2, result: { content: [{ text: "ran write" }] } });
    expect(as.authorizations.map((a) => a.get("scope"))).toEqual(["mcp:basic", "mcp:basic mcp:write"]);
  });

  it("protects the legacy era behind the same check", async () => {
    const { authFetch } = protectedServer();
    const init = await authFetch(
      legacyPost(
        rpc(0, "initialize", {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "t", version: "1" },
        }),
      ),
    );
    expect(await json(init)).toMatchObject({ result: { protocolVersion: "2025-11-25" } });
  });

  for (const era of ["modern", "legacy"] as const) {
    it(`carries our HTTP client transport (${era} era) through discovery, authorization and a step-up`, async () => {
      const { as, authFetch } = protectedServer();
      const client = await ContextClient.connect(httpTransport(URL_, { fetch: authFetch }), {
        era: era === "legacy" ? "legacy" : "auto",
        eraCache: null,
        clientInfo: { name: "auth-test", version: "1" },
      });
      try {
        expect(client.era).toBe(era);
        const result = (await client.request("tools/call", { name: "write", arguments: {} })) as {
          content: { text: string }[];
        };
        expect(result.content[0]?.text).toBe("ran write");
        expect(as.authorizations.map((a) => a.get("scope"))).toEqual(["mcp:basic", "mcp:basic mcp:write"]);
      } finally {
        await client.close();
      }
    });
  }
});
