// ContextClient + ClientInputs against official SDK servers that ask, as real child processes over stdio:
// @modelcontextprotocol/sdk@1.32.2 sends legacy elicitation/sampling/roots requests;
// @modelcontextprotocol/server@2.4.0 answers input_required in the modern era.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { spawnProcess } from "../../adapters/node/mod.ts";
import { ClientInputs } from "../../src/client/client_inputs.ts";
import { ContextClient } from "../../src/client/context_client.ts";
import { EraCache } from "../../src/client/era_cache.ts";

const LEGACY_SERVER = fileURLToPath(
  new URL("../fixtures/sdk/client_peers/asking_legacy_server.mjs", import.meta.url),
);
const MODERN_SERVER = fileURLToPath(
  new URL("../fixtures/sdk/client_peers/asking_modern_server.mjs", import.meta.url),
);

function inputs() {
  return new ClientInputs()
    .onElicit(() => ({ action: "accept", content: { name: "Ada" } }))
    .onSample(() => ({
      role: "assistant",
      content: { type: "text", text: "hi!" },
      model: "test-model",
      stopReason: "endTurn",
    }))
    .setRoots([{ uri: "file:///test/root", name: "Test Root" }]);
}

type CallResult = { content: Array<{ type: string; text: string }> };

describe("ContextClient + ClientInputs against SDK servers that ask", () => {
  it("SDK 1.32 (legacy): our client answers elicitation (with schema defaults), sampling and roots requests", async () => {
    const client = inputs();
    const context = await ContextClient.connect(spawnProcess(process.execPath, [LEGACY_SERVER]), {
      era: "legacy",
      eraCache: new EraCache(),
      inputs: client,
    });
    const result = (await context.request("tools/call", { name: "ask", arguments: {} })) as CallResult;
    expect(JSON.parse(result.content[0].text)).toEqual({
      elicited: { action: "accept", content: { name: "Ada", age: 30 } },
      sampled: { type: "text", text: "hi!" },
      roots: [{ uri: "file:///test/root", name: "Test Root" }],
    });
    await context.close();
  });

  it("SDK 2.4 (modern): our client fulfils input_required and retries with the state echoed exactly", async () => {
    const client = inputs();
    const context = await ContextClient.connect(spawnProcess(process.execPath, [MODERN_SERVER]), {
      era: "auto",
      eraCache: new EraCache(),
      inputs: client,
    });
    expect(context.era).toBe("modern");
    const first = (await context.request("tools/call", { name: "ask", arguments: {} }, {
      inputRequired: "manual",
    })) as Record<string, unknown>;
    expect(first.resultType).toBe("input_required");
    const result = (await context.request("tools/call", { name: "ask", arguments: {} })) as CallResult;
    const body = JSON.parse(result.content[0].text);
    expect(body.who).toEqual({ name: "Ada" });
    expect(body.hi).toEqual({ type: "text", text: "hi!" });
    expect(body.state).toBe('sdk2-state:"quoted"');
    await context.close();
  });
});
