/**
 * Per-tool scopes: `requiredScopes` on `server.tool(...)`, read by `requireBearer` through
 * `scopesFromServer(server)`: a token lacking them gets 403 `insufficient_scope` naming them.
 */
import { describe, expect, it } from "vitest";
import { parseBearerChallenge, requireBearer, scopesFromServer, withOAuth } from "../../../src/auth/mod.ts";
import { ContextClient } from "../../../src/client/context_client.ts";
import { httpTransport } from "../../../src/http/client/http_client_transport.ts";
import { createHttpHandler } from "../../../src/http/server/create_http_handler.ts";
import { ContextServer } from "../../../src/server/context_server.ts";
import { json, modernRequest, URL_ } from "../http/server/http_handler_helpers.ts";
import { AuthServerFixture, autoApprove, routeFetch } from "./oauth_fixtures.ts";

const AS = "http://127.0.0.1:9102";

function scopedServer() {
  const as = new AuthServerFixture({ origin: AS });
  const server = new ContextServer({ name: "scoped", version: "1.0.0" });
  server.tool("read_file", { description: "Reads" }, () => "read");
  const write = server.tool(
    "write_file",
    { description: "Writes", requiredScopes: ["files:write"] },
    () => "written",
  );
  const handler = requireBearer(createHttpHandler(server, { keepAliveInterval: 0 }), {
    verify: (token) => as.verifierFor(URL_)(token),
    metadata: { resource: URL_, authorization_servers: [AS], scopes_supported: ["mcp:basic", "files:write"] },
    scopes: ["mcp:basic"],
    scopesFor: scopesFromServer(server),
  });
  const token = (scopes: string[]): string => {
    const value = `test-${scopes.join("-").replace(/[^A-Za-z0-9-]/g, "_") || "none"}`;
    as.tokens.set(value, { scopes, resource: URL_, clientId: "test" });
    return value;
  };
  const call = (name: string, bearer: string, id = 1) =>
    handler(
      modernRequest(id, "tools/call", { name, arguments: {} }, {
        headers: { authorization: `Bearer ${bearer}` },
      }),
    );
  return { as, server, handler, token, call, write };
}

describe("requiredScopes with scopesFromServer", () => {
  it("answers 403 insufficient_scope naming the tool's scopes when the token lacks them", async () => {
    const { call, token } = scopedServer();
    const response = await call("write_file", token(["mcp:basic"]));
    expect(response.status).toBe(403);
    const challenge = parseBearerChallenge(response.headers.get("www-authenticate"));
    expect(challenge?.error).toBe("insufficient_scope");
    expect(challenge?.scope?.split(" ").sort()).toEqual(["files:write", "mcp:basic"]);
  });

  it("runs the tool when the token holds its scopes, and a tool without requiredScopes with the base scope only", async () => {
    const { call, token } = scopedServer();
    const written = await call("write_file", token(["mcp:basic", "files:write"]));
    expect(written.status).toBe(200);
    expect(await json(written)).toMatchObject({ result: { content: [{ text: "written" }] } });
    const read = await call("read_file", token(["mcp:basic"]));
    expect(read.status).toBe(200);
    expect(await json(read)).toMatchObject({ result: { content: [{ text: "read" }] } });
  });

  it("reads the registry at each call: a tool removed no longer needs its scopes, one added later does", async () => {
    const { server, call, token, write } = scopedServer();
    const basic = token(["mcp:basic"]);
    write.remove();
    expect((await call("write_file", basic)).status).toBe(200); // now an unknown tool: a tool error, not a 403
    server.tool("admin", { requiredScopes: ["admin"] }, () => "ok");
    expect((await call("admin", basic)).status).toBe(403);
  });

  it("keeps requiredScopes off tools/list and refuses a value that is not a list of scope tokens", async () => {
    const { call, token, server } = scopedServer();
    const list = await json(
      await scopedServer().handler(
        modernRequest(1, "tools/list", {}, { headers: { authorization: `Bearer ${token(["mcp:basic"])}` } }),
      ),
    );
    expect(JSON.stringify(list)).not.toContain("files:write");
    expect(() => server.tool("bad", { requiredScopes: ["two words"] }, () => "x")).toThrow(/requiredScopes/);
    expect(() => server.tool("bad2", { requiredScopes: "files:write" as never }, () => "x")).toThrow(
      /requiredScopes/,
    );
    expect((await call("read_file", token(["mcp:basic"]))).status).toBe(200);
  });

  it("drives withOAuth's step-up: the client asks for the tool's scopes and the call then runs", async () => {
    const { as, handler } = scopedServer();
    const fetch = routeFetch({ [AS]: as.handler, [new URL(URL_).origin]: handler });
    const authFetch = withOAuth(fetch, {
      redirectUri: "http://127.0.0.1:7778/callback",
      redirectTo: autoApprove(fetch),
    });
    const client = await ContextClient.connect(httpTransport(URL_, { fetch: authFetch }), {
      eraCache: null,
      clientInfo: { name: "t", version: "1" },
    });
    try {
      const result = (await client.request("tools/call", { name: "write_file", arguments: {} })) as {
        content: { text: string }[];
      };
      expect(result.content[0]?.text).toBe("written");
      expect(as.authorizations.map((a) => a.get("scope")?.split(" ").sort().join(" "))).toEqual([
        "mcp:basic",
        "files:write mcp:basic",
      ]);
    } finally {
      await client.close();
    }
  });
});
