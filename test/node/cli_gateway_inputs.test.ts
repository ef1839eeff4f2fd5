/**
 * `onemodelcontext serve --http`: what a stdio server asks its client (elicitation, sampling, roots)
 * crosses the gateway to the HTTP client and back, in both eras: legacy server-to-client requests
 * travel over the session's response streams; modern input_required rounds pass through as they are.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClientInputs } from "../../src/client/client_inputs.ts";
import { ContextClient } from "../../src/client/context_client.ts";
import { httpTransport } from "../../src/http/client/http_client_transport.ts";
import { ensureDist } from "../fixtures/ours/build_dist.ts";
import { CliChild, EVERYTHING } from "./cli_helpers.ts";

let gateway: CliChild;
let url: string;

beforeAll(async () => {
  ensureDist();
  gateway = new CliChild(["serve", "--http", "0", "--", process.execPath, EVERYTHING]);
  await gateway.waitFor("stderr", /serving (http:\S+)/);
  url = /serving (http:\S+)/.exec(gateway.stderr)![1]!;
}, 120_000);
afterAll(async () => {
  if (gateway.child.exitCode === null) {
    gateway.child.kill("SIGINT");
    await gateway.exited;
  }
});

/** An answer for each field the everything server's forms ask for. */
const ANSWERS: Record<string, unknown> = {
  name: "Ada",
  color: "blue",
  ok: true,
  username: "ada",
  email: "ada@example.com",
};

async function connect(era: "legacy" | "modern", only?: "roots"): Promise<ContextClient> {
  // Handlers before connecting: a legacy session declares its capabilities once, in initialize.
  const inputs = new ClientInputs().setRoots([{ uri: "file:///gateway/root", name: "Gateway Root" }]);
  if (only === undefined) {
    inputs
      .onElicit((params) => {
        const fields = "requestedSchema" in params ? Object.keys(params.requestedSchema.properties) : [];
        return {
          action: "accept",
          content: Object.fromEntries(fields.map((field) => [field, ANSWERS[field]])) as Record<
            string,
            string
          >,
        };
      })
      .onSample((params) => ({
        role: "assistant",
        content: { type: "text", text: `sampled ${(params.messages[0]?.content as { text?: string }).text}` },
        model: "test-model",
      }));
  }
  return ContextClient.connect(httpTransport(url), { era, eraCache: null, inputs });
}

/** The text of a tool's result, called through the gateway by a fresh client. */
async function callText(
  era: "legacy" | "modern",
  tool: string,
  args: Record<string, unknown> = {},
  only?: "roots",
): Promise<string> {
  const client = await connect(era, only);
  try {
    const result = await client.callTool(tool, args);
    return result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
  } finally {
    await client.close();
  }
}

describe.each(["legacy", "modern"] as const)("the HTTP gateway, %s era", (era) => {
  it("carries an elicitation to the HTTP client and its answer back", async () => {
    expect(await callText(era, "test_elicitation", { message: "Who?" })).toBe(
      'User response: action=accept, content={"username":"ada","email":"ada@example.com"}',
    );
  });

  it("carries a sampling request", async () => {
    expect(await callText(era, "test_sampling", { prompt: "Capital?" })).toBe(
      "LLM response: sampled Capital?",
    );
  });

  it("carries elicitation, sampling and roots asked at once", async () => {
    expect(await callText(era, "test_input_required_result_multiple_inputs")).toBe(
      "name=Ada, greeting=sampled Generate a greeting, roots=1",
    );
  });

  it("carries asks of two rounds, and the server's state between them", async () => {
    expect(await callText(era, "test_input_required_result_multi_round")).toBe("Ada likes blue");
    expect(await callText(era, "test_input_required_result_request_state")).toBe("state-ok: confirmed=true");
  });

  it("the server sees the HTTP client's capabilities, not the gateway's", async () => {
    expect(await callText(era, "test_input_required_result_capabilities", {}, "roots")).toBe("Roots: 1");
    expect(await callText(era, "test_input_required_result_capabilities")).toBe("Elicited: Ada");
  });
});
