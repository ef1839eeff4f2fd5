/**
 * The CLI's OAuth flow for URL targets: a protected server (requireBearer over createHttpHandler) and
 * an authorization server that approves at once, both served on 127.0.0.1 by the test. The test plays
 * the browser: it reads the authorization URL the CLI prints on stderr and follows it to the CLI's
 * loopback redirect.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { requireBearer } from "../../src/auth/mod.ts";
import { createHttpHandler } from "../../src/http/server/create_http_handler.ts";
import { ContextServer } from "../../src/server/context_server.ts";
import { ensureDist } from "../fixtures/ours/build_dist.ts";
import { AuthServerFixture, type AuthServerOptions } from "../src/auth/oauth_fixtures.ts";
import { serveHandler } from "../src/auth/serve_handler.ts";
import { CliChild } from "./cli_helpers.ts";

beforeAll(() => ensureDist(), 120_000);

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** An authorization server and a protected MCP server with one tool, `echo`, each on its own port. */
async function protectedSetup(asOptions: Omit<AuthServerOptions, "origin"> = {}) {
  const routes: { as?: AuthServerFixture; mcp?: (request: Request) => Promise<Response> } = {};
  const asServer = await serveHandler((request) => routes.as!.handler(request));
  closers.push(asServer.close);
  const as = (routes.as = new AuthServerFixture({ origin: asServer.origin, ...asOptions }));
  const mcp = new ContextServer({ name: "protected", version: "1.0.0", capabilities: { tools: {} } });
  mcp.handle(
    "tools/list",
    () => ({
      tools: [{ name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } }],
    }),
  );
  mcp.handle(
    "tools/call",
    (params: { name: string; arguments?: { text?: string } }) => ({
      content: [{ type: "text", text: `echo: ${params.arguments?.text ?? ""}` }],
    }),
  );
  const http = createHttpHandler(mcp, { keepAliveInterval: 0 });
  const mcpServer = await serveHandler((request) => routes.mcp!(request));
  closers.push(mcpServer.close);
  const url = `${mcpServer.origin}/mcp`;
  const fixture = as;
  routes.mcp = requireBearer(http, {
    verify: (token) => fixture.verifierFor(url)(token),
    metadata: { resource: url, authorization_servers: [fixture.issuer], scopes_supported: ["mcp:basic"] },
    scopes: ["mcp:basic"],
  });
  return { as: fixture, url };
}

/** Plays the browser: follows the authorization URL; the server's 302 goes to the CLI's loopback. */
async function approve(authorizationUrl: string): Promise<void> {
  const response = await fetch(authorizationUrl, { redirect: "manual" });
  const location = response.headers.get("location");
  expect(response.status).toBe(302);
  const callback = await fetch(location!);
  expect(callback.status).toBe(200);
  await callback.text();
}

const AUTH_URL = /Authorization needed: open this URL in a browser:\n(\S+)\n/;

describe("CLI OAuth on a 401", () => {
  it("prints the authorization URL, takes the redirect on 127.0.0.1 and then calls the tool", async () => {
    const { as, url } = await protectedSetup();
    const run = new CliChild(["call", "echo", "text=hi", "--", url]);
    closers.push(() => Promise.resolve(void run.child.kill()));
    await run.waitFor("stderr", AUTH_URL);
    const printed = AUTH_URL.exec(run.stderr)![1]!;
    const authorization = new URL(printed);
    expect(authorization.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(authorization.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorization.searchParams.get("resource")).toBe(url);
    await approve(printed);
    expect(await run.exited).toBe(0);
    expect(run.stdout).toContain("echo: hi");
    expect(as.registrations).toHaveLength(1); // dynamic registration: no --client-id given
  }, 60_000);

  it("uses a pre-registered client given by --client-id and --client-secret, with --scope", async () => {
    const { as, url } = await protectedSetup({ clients: { "cli-app": "s3cret" }, registration: false });
    const run = new CliChild([
      "call",
      "echo",
      "text=pre",
      "--client-id",
      "cli-app",
      "--client-secret",
      "s3cret",
      "--scope",
      "mcp:basic extra",
      "--",
      url,
    ]);
    closers.push(() => Promise.resolve(void run.child.kill()));
    await run.waitFor("stderr", AUTH_URL);
    const printed = AUTH_URL.exec(run.stderr)![1]!;
    expect(new URL(printed).searchParams.get("client_id")).toBe("cli-app");
    expect(new URL(printed).searchParams.get("scope")).toBe("mcp:basic extra");
    await approve(printed);
    expect(await run.exited).toBe(0);
    expect(run.stdout).toContain("echo: pre");
    expect(as.tokenRequests[0]?.authorization).toMatch(/^Basic /);
  }, 60_000);

  it(
    "exits 3 with a clear error when the authorization fails (the redirect carries a wrong iss)",
    async () => {
      const { url } = await protectedSetup({ issInRedirect: "wrong" });
      const run = new CliChild(["call", "echo", "text=no", "--", url]);
      closers.push(() => Promise.resolve(void run.child.kill()));
      await run.waitFor("stderr", AUTH_URL);
      await approve(AUTH_URL.exec(run.stderr)![1]!);
      expect(await run.exited).toBe(3);
      expect(run.stderr).toMatch(/Connection failed: .*iss/i);
      expect(run.stdout).toBe("");
    },
    60_000,
  );

  it(
    "exits 3 without printing a URL when the authorization server does not advertise PKCE S256",
    async () => {
      const { url } = await protectedSetup({ pkceMethods: null });
      const run = new CliChild(["call", "echo", "text=no", "--", url]);
      expect(await run.exited).toBe(3);
      expect(run.stderr).toMatch(/Connection failed: .*(PKCE|S256)/);
      expect(run.stderr).not.toMatch(AUTH_URL);
    },
    60_000,
  );

  it("--no-oauth leaves the 401 as a connection failure", async () => {
    const { as, url } = await protectedSetup();
    const run = new CliChild(["call", "echo", "text=no", "--no-oauth", "--", url]);
    expect(await run.exited).toBe(3);
    expect(run.stderr).toContain("Connection failed");
    expect(as.requests).toHaveLength(0);
  }, 60_000);
});
