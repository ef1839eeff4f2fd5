/**
 * Request state and input rounds on Bun: WebCrypto HMAC seals and verifies; a modern round answers
 * input_required and the retry completes; tampering is refused.
 * @module
 */
import { expect, test } from "bun:test";
import { InputRounds } from "../../src/server/input/input_rounds.ts";
import { RequestStateCodec } from "../../src/server/input/request_state.ts";
import { RequestStateError } from "../../src/server/input/request_state_error.ts";

const KEY = "7c".repeat(32);

test("RequestStateCodec on Bun opens what it sealed and refuses a modified state", async () => {
  const codec = new RequestStateCodec({ key: KEY });
  const binding = { method: "tools/call", params: { name: "t" } };
  const state = await codec.seal({ n: 1 }, binding);
  expect(await codec.open(state, binding)).toEqual({ n: 1 });
  // Each change keeps both parts well formed (the tag its length), so only the HMAC check can refuse it.
  const [body, tag] = state.split(".") as [string, string];
  const other = (await codec.seal({ n: 2 }, binding)).split(".")[0]!;
  const flip = (text: string, at: number) =>
    `${text.slice(0, at)}${text[at] === "A" ? "B" : "A"}${text.slice(at + 1)}`;
  for (const modified of [`${flip(body, 5)}.${tag}`, `${body}.${flip(tag, 0)}`, `${other}.${tag}`]) {
    const error = await codec.open(modified, binding).then(() => undefined, (e: unknown) => e);
    expect(error instanceof RequestStateError).toBe(true);
    expect((error as RequestStateError).reason).toBe("tampered");
  }
});

test("InputRounds on Bun: input_required, then the retry completes", async () => {
  const rounds = new InputRounds({ codec: new RequestStateCodec({ key: KEY }) });
  const request = (params: Record<string, unknown>) => ({
    era: "modern" as const,
    method: "tools/call",
    params,
    clientCapabilities: { roots: {} },
  });
  const body = async (input: { listRoots(o?: { key?: string }): Promise<{ roots: { uri: string }[] }> }) =>
    (await input.listRoots({ key: "r" })).roots.length;
  const first = (await rounds.run(request({ name: "t" }), body)) as {
    resultType: string;
    requestState: string;
  };
  expect(first.resultType).toBe("input_required");
  const done = await rounds.run(
    request({
      name: "t",
      requestState: first.requestState,
      inputResponses: { r: { roots: [{ uri: "file:///x" }] } },
    }),
    body,
  );
  expect(done).toBe(1);
});
