/**
 * `notifications/elicitation/complete` (legacy era, 2025-11-25 client/elicitation, URL mode): the
 * server's notification reaches `ClientInputs.onElicitationComplete` whichever transport carries it,
 * a stream (`pipe`) or a Streamable HTTP session (`http`). The modern era has no such notification
 * (2026-07-28 removed it), so only the legacy era is exercised.
 */
import { describe, expect, it } from "vitest";
import { ClientInputs } from "../../../src/client/client_inputs.ts";
import { ContextClient } from "../../../src/client/context_client.ts";
import { httpTransport } from "../../../src/http/client/http_client_transport.ts";
import { createHttpHandler } from "../../../src/http/server/create_http_handler.ts";
import { ContextServer } from "../../../src/server/context_server.ts";
import { createDuplexPair } from "../../../testing/duplex_pair.ts";

/** A server whose tool asks for a URL elicitation, then reports it complete (twice, and an unknown id). */
function urlElicitingServer(): ContextServer {
  const server = new ContextServer({ name: "url-eliciting", version: "1.0.0", capabilities: { tools: {} } });
  server.handle("tools/call", async (_params, ctx) => {
    // `ctx.notify` rather than `ctx.elicitationComplete`, to also send an unknown id and a repeat.
    const urlElicitation = {
      mode: "url" as const,
      message: "Sign in",
      url: "https://auth.example/sign-in",
      elicitationId: "e1",
    };
    const answer = await ctx.elicit(urlElicitation);
    await ctx.notify("notifications/elicitation/complete", { elicitationId: "unknown" });
    await ctx.notify("notifications/elicitation/complete", { elicitationId: "e1" });
    await ctx.notify("notifications/elicitation/complete", { elicitationId: "e1" });
    return { content: [{ type: "text", text: answer.action }] };
  });
  return server;
}

async function connect(
  server: ContextServer,
  net: "pipe" | "http",
  inputs: ClientInputs,
): Promise<ContextClient> {
  if (net === "pipe") {
    const [serverSide, clientSide] = createDuplexPair();
    void server.serve(serverSide);
    return ContextClient.connect(clientSide, { era: "legacy", eraCache: null, inputs });
  }
  const handler = createHttpHandler(server, { keepAliveInterval: 0, sessions: true });
  const fetch = (input: RequestInfo | URL, init?: RequestInit) => handler(new Request(input, init));
  return ContextClient.connect(httpTransport("http://127.0.0.1/mcp", { fetch }), {
    era: "legacy",
    eraCache: null,
    inputs,
  });
}

describe("notifications/elicitation/complete reaches ClientInputs on every transport", () => {
  for (const net of ["pipe", "http"] as const) {
    it(`over ${net} (legacy), request(): listeners hear the accepted URL elicitation's id once`, async () => {
      const inputs = new ClientInputs().onElicit(() => ({ action: "accept" }), { modes: ["url"] });
      const completed: string[] = [];
      inputs.onElicitationComplete((id) => completed.push(id));
      const client = await connect(urlElicitingServer(), net, inputs);
      const result = await client.request("tools/call", { name: "sign-in", arguments: {} });
      expect(result).toMatchObject({ content: [{ type: "text", text: "accept" }] });
      expect(completed).toEqual(["e1"]);
      await client.close();
    });

    it(`over ${net} (legacy), callTool(): listeners and onNotification handlers hear it`, async () => {
      const inputs = new ClientInputs().onElicit(() => ({ action: "accept" }), { modes: ["url"] });
      const completed: string[] = [];
      inputs.onElicitationComplete((id) => completed.push(id));
      const client = await connect(urlElicitingServer(), net, inputs);
      const handled: unknown[] = [];
      client.onNotification("notifications/elicitation/complete", (params) => void handled.push(params));
      const result = await client.callTool("sign-in", {});
      expect(result).toMatchObject({ content: [{ type: "text", text: "accept" }] });
      expect(completed).toEqual(["e1"]);
      expect(handled).toEqual([{ elicitationId: "unknown" }, { elicitationId: "e1" }, {
        elicitationId: "e1",
      }]);
      await client.close();
    });
  }
});
