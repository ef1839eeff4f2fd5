/**
 * URL-mode elicitation from the server's side (2025-11-25 client/elicitation): a handler asks with a
 * typed `{ mode: "url", url, elicitationId }` and reports the interaction done with
 * `ctx.elicitationComplete(id)`. In a legacy session the client's `inputs.onElicitationComplete`
 * hears the id, over a stream (stdio framing) and a Streamable HTTP session, during the request and
 * after its reply (then through the session). In the modern era
 * (2026-07-28 removed the notification) the call sends nothing and resolves false.
 */
import { describe, expect, it } from "vitest";
import { ClientInputs } from "../../../../src/client/client_inputs.ts";
import { ContextClient } from "../../../../src/client/context_client.ts";
import { httpTransport } from "../../../../src/http/client/http_client_transport.ts";
import { createHttpHandler } from "../../../../src/http/server/create_http_handler.ts";
import { ContextServer } from "../../../../src/server/context_server.ts";
import type { HandlerContext } from "../../../../src/server/features/handler_context.ts";
import type { ElicitUrlParams } from "../../../../src/server/input/elicit_params.ts";
import type { Era } from "../../../../src/wire/protocol_versions.ts";
import { InvalidOptionError } from "../../../../src/wire/errors.ts";
import { createDuplexPair } from "../../../../testing/duplex_pair.ts";

const SIGN_IN: ElicitUrlParams = {
  mode: "url",
  message: "Sign in to the calendar",
  url: "https://auth.example/sign-in",
  elicitationId: "sign-in-1",
};

/** A server whose `sign-in` tool asks for a URL elicitation and reports it done; `bad-id` misuses the id. */
function signInServer(): ContextServer {
  const server = new ContextServer({ name: "sign-in", version: "1.0.0" });
  server.tool("sign-in", {}, async (_args, ctx) => {
    const answer = await ctx.elicit(SIGN_IN);
    const sent = await ctx.elicitationComplete(SIGN_IN.elicitationId!);
    return `${answer.action} ${sent}`;
  });
  server.tool("bad-id", {}, async (_args, ctx) => {
    const error = await ctx.elicitationComplete("").then(() => undefined, (error: unknown) => error);
    return error instanceof InvalidOptionError ? `${error.code}: ${error.message}` : "no error";
  });
  return server;
}

async function connect(server: ContextServer, net: "stdio" | "http", era: Era, inputs: ClientInputs) {
  if (net === "stdio") {
    const [serverSide, clientSide] = createDuplexPair();
    void server.serve(serverSide);
    return ContextClient.connect(clientSide, { era, eraCache: null, inputs });
  }
  const handler = createHttpHandler(server, { keepAliveInterval: 0, sessions: era === "legacy" });
  const fetch = (input: RequestInfo | URL, init?: RequestInit) => handler(new Request(input, init));
  return ContextClient.connect(httpTransport("http://127.0.0.1/mcp", { fetch }), {
    era,
    eraCache: null,
    inputs,
  });
}

/** A server whose `sign-in-later` tool replies at once and keeps its context to report the elicitation done later. */
function laterServer() {
  const server = new ContextServer({ name: "sign-in-later", version: "1.0.0" });
  const kept: HandlerContext[] = [];
  server.tool("sign-in-later", {}, async (_args, ctx) => {
    const answer = await ctx.elicit(SIGN_IN);
    kept.push(ctx);
    return answer.action;
  });
  server.tool("keep", {}, (_args, ctx) => {
    kept.push(ctx);
    return "kept";
  });
  return { server, kept };
}

/** A client that accepts URL elicitations and records what it was asked and told. */
function recordingInputs() {
  const asked: unknown[] = [];
  const completed: string[] = [];
  const inputs = new ClientInputs().onElicit((params) => {
    asked.push(params);
    return { action: "accept" };
  }, { modes: ["url"] });
  inputs.onElicitationComplete((id) => completed.push(id));
  return { inputs, asked, completed };
}

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0].text;

describe("ctx.elicitationComplete", () => {
  for (const net of ["stdio", "http"] as const) {
    it(`over ${net} (legacy): the client gets the typed URL elicitation, then hears its completion`, async () => {
      const { inputs, asked, completed } = recordingInputs();
      const client = await connect(signInServer(), net, "legacy", inputs);
      const notified: unknown[] = [];
      client.onNotification("notifications/elicitation/complete", (params) => void notified.push(params));
      expect(textOf(await client.callTool("sign-in", {}))).toBe("accept true");
      expect(asked).toEqual([SIGN_IN]);
      expect(completed).toEqual(["sign-in-1"]);
      expect(notified).toEqual([{ elicitationId: "sign-in-1" }]);
      await client.close();
    });

    it(`over ${net} (modern): sends nothing and resolves false (2026-07-28 has no such notification)`, async () => {
      const { inputs, asked, completed } = recordingInputs();
      const client = await connect(signInServer(), net, "modern", inputs);
      const notified: unknown[] = [];
      client.onNotification("notifications/elicitation/complete", (params) => void notified.push(params));
      expect(textOf(await client.callTool("sign-in", {}))).toBe("accept false");
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({ mode: "url", url: SIGN_IN.url, message: SIGN_IN.message });
      expect(completed).toEqual([]);
      expect(notified).toEqual([]);
      await client.close();
    });
  }

  for (const era of ["legacy", "modern"] as const) {
    it(`rejects an empty elicitationId with InvalidOptionError (${era})`, async () => {
      const client = await connect(signInServer(), "stdio", era, recordingInputs().inputs);
      expect(textOf(await client.callTool("bad-id", {}))).toBe(
        'invalid_option: The elicitationId of notifications/elicitation/complete must be a non-empty string, got ""',
      );
      await client.close();
    });
  }

  for (const net of ["stdio", "http"] as const) {
    it(`over ${net} (legacy), after the reply: the session carries it`, async () => {
      const { server, kept } = laterServer();
      const { inputs, completed } = recordingInputs();
      const heard = new Promise<string>((resolve) => inputs.onElicitationComplete(resolve));
      const client = await connect(server, net, "legacy", inputs);
      expect(textOf(await client.callTool("sign-in-later", {}))).toBe("accept");
      expect(completed).toEqual([]);
      expect(await kept[0].elicitationComplete("sign-in-1")).toBe(true);
      expect(await heard).toBe("sign-in-1");
      expect(completed).toEqual(["sign-in-1"]);
      await client.close();
    });
  }

  it("after the reply on stateless HTTP (legacy): nothing can carry it, resolves false", async () => {
    const { server, kept } = laterServer();
    const handler = createHttpHandler(server, { keepAliveInterval: 0, sessions: false });
    const fetch = (input: RequestInfo | URL, init?: RequestInit) => handler(new Request(input, init));
    const { inputs, completed } = recordingInputs();
    const client = await ContextClient.connect(httpTransport("http://127.0.0.1/mcp", { fetch }), {
      era: "legacy",
      eraCache: null,
      inputs,
    });
    expect(textOf(await client.callTool("keep", {}))).toBe("kept");
    expect(await kept[0].elicitationComplete("sign-in-1")).toBe(false);
    expect(completed).toEqual([]);
    await client.close();
  });

  it("a low-level handle() context sends it too (legacy)", async () => {
    const server = new ContextServer({ name: "raw", version: "1.0.0", capabilities: { tools: {} } });
    server.handle("tools/call", async (_params, ctx) => {
      await ctx.elicit(SIGN_IN);
      const sent = await ctx.elicitationComplete("sign-in-1");
      return { content: [{ type: "text", text: String(sent) }] };
    });
    const { inputs, completed } = recordingInputs();
    const client = await connect(server, "stdio", "legacy", inputs);
    expect(textOf(await client.request("tools/call", { name: "x", arguments: {} }))).toBe("true");
    expect(completed).toEqual(["sign-in-1"]);
    await client.close();
  });
});
