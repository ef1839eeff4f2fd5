// One handler that asks for a confirmation and a sampled summary, in a real child process over stdio:
// the SDK 2.4 client (modern, auto-fulfilment), the SDK 1.32 client (legacy requests), our client in
// both eras, and two replicas sharing a state key (the retry goes to the other process).
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as LegacyStdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CreateMessageRequestSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { spawnProcess } from "../../adapters/node/mod.ts";
import { ClientInputs } from "../../src/client/client_inputs.ts";
import { ContextClient } from "../../src/client/context_client.ts";
import { EraCache } from "../../src/client/era_cache.ts";
import { JsonRpcError } from "../../src/wire/errors.ts";
import { ensureDist, ROOT } from "../fixtures/ours/build_dist.ts";

const FIXTURE = join(ROOT, "test/fixtures/ours/asking_server_stdio.mjs");
const KEY = "3d".repeat(32);
const env = (key = KEY) => ({ ...(process.env as Record<string, string>), STATE_KEY: key });
const call = { name: "confirm_and_summarise", arguments: { topic: "MCP" } };
const elicited = { action: "accept", content: { ok: true } };
const sampled = {
  role: "assistant",
  content: { type: "text", text: "a short summary" },
  model: "test-model",
  stopReason: "endTurn",
};
const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0].text;

beforeAll(() => ensureDist());

describe("an asking handler over stdio", () => {
  it("SDK 2.4 client (auto → modern) fulfils our input_required rounds", async () => {
    const client = new Client({ name: "sdk-2.4", version: "2.4.0" }, {
      capabilities: { elicitation: {}, sampling: {} },
      versionNegotiation: { mode: "auto", probe: { timeoutMs: 10_000 } },
    });
    client.setRequestHandler("elicitation/create", async () => elicited as never);
    client.setRequestHandler("sampling/createMessage", async () => sampled as never);
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [FIXTURE], env: env(), stderr: "inherit" }),
    );
    expect(client.getProtocolEra()).toBe("modern");
    expect(textOf(await client.callTool(call))).toMatch(/^modern: a short summary \(pid \d+, round 2\)$/);
    await client.close();
  });

  it("SDK 1.32 client (legacy) answers our elicitation and sampling requests", async () => {
    const client = new LegacyClient({ name: "sdk-1.32", version: "1.32.2" }, {
      capabilities: { elicitation: {}, sampling: {} },
    });
    client.setRequestHandler(ElicitRequestSchema, async () => elicited as never);
    client.setRequestHandler(CreateMessageRequestSchema, async () => sampled as never);
    await client.connect(
      new LegacyStdioClientTransport({
        command: process.execPath,
        args: [FIXTURE],
        env: env(),
        stderr: "inherit",
      }),
    );
    expect(textOf(await client.callTool(call))).toMatch(/^legacy: a short summary \(pid \d+, round 0\)$/);
    await client.close();
  });

  it("our client in both eras runs the same handler unchanged", async () => {
    for (const era of ["modern", "legacy"] as const) {
      const inputs = new ClientInputs().onElicit(() => elicited as never).onSample(() => sampled as never);
      const client = await ContextClient.connect(spawnProcess(process.execPath, [FIXTURE], { env: env() }), {
        era,
        eraCache: new EraCache(),
        inputs,
      });
      expect(textOf(await client.request("tools/call", call))).toMatch(
        new RegExp(`^${era}: a short summary`),
      );
      await client.close();
    }
  });

  it("two replicas sharing a key: a retry with state from one completes on the other; a third with another key refuses it", async () => {
    const inputs = new ClientInputs().onElicit(() => elicited as never).onSample(() => sampled as never);
    const open = (key: string) =>
      ContextClient.connect(spawnProcess(process.execPath, [FIXTURE], { env: env(key) }), {
        era: "modern",
        eraCache: new EraCache(),
        inputs,
      });
    const [a, b, c] = await Promise.all([open(KEY), open(KEY), open("9f".repeat(32))]);
    const first = (await a.request("tools/call", call, { inputRequired: "manual" })) as {
      requestState: string;
    };
    const second = (await b.request("tools/call", {
      ...call,
      requestState: first.requestState,
      inputResponses: { confirm: elicited },
    }, { inputRequired: "manual" })) as {
      resultType: string;
      inputRequests: Record<string, unknown>;
      requestState: string;
    };
    expect(second.resultType).toBe("input_required");
    expect(Object.keys(second.inputRequests)).toEqual(["summary"]);
    const done = await a.request("tools/call", {
      ...call,
      requestState: second.requestState,
      inputResponses: { summary: sampled },
    }, { inputRequired: "manual" });
    expect(textOf(done)).toMatch(/^modern: a short summary \(pid \d+, round 2\)$/);
    const refused = await c.request("tools/call", {
      ...call,
      requestState: first.requestState,
      inputResponses: { confirm: elicited },
    }).then(() => undefined, (e: unknown) => e);
    expect(refused).toBeInstanceOf(JsonRpcError);
    expect((refused as JsonRpcError).code).toBe(-32602);
    expect((refused as JsonRpcError).data).toEqual({ reason: "tampered" });
    await Promise.all([a.close(), b.close(), c.close()]);
  });
});
