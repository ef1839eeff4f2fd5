/**
 * URL-mode elicitation end to end over real transports: a server in a child process on stdio, and a
 * server behind a real HTTP listener on 127.0.0.1. Its tool asks `{ mode: "url", url, elicitationId }`
 * and calls `ctx.elicitationComplete(id)`: our client's `inputs.onElicitationComplete` hears the id in
 * a legacy session and nothing in the modern era, where the call resolves false.
 */
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { httpTransport, serve, spawnProcess } from "../../adapters/node/mod.ts";
import { ClientInputs } from "../../src/client/client_inputs.ts";
import { ContextClient } from "../../src/client/context_client.ts";
import { createHttpHandler } from "../../src/http/server/create_http_handler.ts";
import { ContextServer } from "../../src/server/context_server.ts";
import { ensureDist, ROOT } from "../fixtures/ours/build_dist.ts";

const FIXTURE = join(ROOT, "test/fixtures/ours/url_eliciting_server_stdio.mjs");

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!();
});

beforeAll(() => ensureDist());

/** The fixture's server, in this process (the HTTP leg). */
function signInServer(): ContextServer {
  const server = new ContextServer({ name: "url-eliciting", version: "0.1.0" });
  server.tool("sign-in", {}, async (_args, ctx) => {
    const answer = await ctx.elicit({
      mode: "url",
      message: "Sign in to the calendar",
      url: "https://auth.example/sign-in",
      elicitationId: "sign-in-1",
    });
    const sent = await ctx.elicitationComplete("sign-in-1");
    return `${ctx.era} ${answer.action} ${sent}`;
  });
  return server;
}

async function connect(net: "stdio" | "http", era: "legacy" | "modern") {
  const asked: unknown[] = [];
  const completed: string[] = [];
  const inputs = new ClientInputs().onElicit((params) => {
    asked.push(params);
    return { action: "accept" };
  }, { modes: ["url"] });
  inputs.onElicitationComplete((id) => completed.push(id));
  let client: ContextClient;
  if (net === "stdio") {
    client = await ContextClient.connect(spawnProcess(process.execPath, [FIXTURE]), {
      era,
      eraCache: null,
      inputs,
    });
  } else {
    const handler = createHttpHandler(signInServer(), { keepAliveInterval: 0, sessions: era === "legacy" });
    const http = await serve(handler, { idleCloseDelay: 0 });
    cleanup.push(() => http.close());
    client = await ContextClient.connect(httpTransport(new URL("/mcp", http.url).href), {
      era,
      eraCache: null,
      inputs,
    });
  }
  cleanup.push(() => client.close());
  return { client, asked, completed };
}

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0].text;

describe("URL-mode elicitation over real transports", () => {
  for (const net of ["stdio", "http"] as const) {
    it(`${net}, legacy: the client gets the elicitationId and hears the completion`, async () => {
      const { client, asked, completed } = await connect(net, "legacy");
      expect(textOf(await client.callTool("sign-in", {}))).toBe("legacy accept true");
      expect(asked).toEqual([{
        mode: "url",
        message: "Sign in to the calendar",
        url: "https://auth.example/sign-in",
        elicitationId: "sign-in-1",
      }]);
      expect(completed).toEqual(["sign-in-1"]);
    });

    it(`${net}, modern: no notification, elicitationComplete resolves false`, async () => {
      const { client, asked, completed } = await connect(net, "modern");
      expect(textOf(await client.callTool("sign-in", {}))).toBe("modern accept false");
      expect(asked).toHaveLength(1);
      expect(completed).toEqual([]);
    });
  }
});
