import { describe, expect, it } from "vitest";
import { JsonText } from "../../../src/wire/json_text.ts";
import { decorateModernResult } from "../../../src/wire/meta_envelope.ts";
import { envelope, setup } from "./context_server_helpers.ts";

const SERVER_INFO = { name: "test-server", version: "1.2.3" };

/** The raw line of the next message from the server. */
async function nextLine(peer: ReturnType<typeof setup>["peer"]): Promise<string> {
  const item = await peer.channel.read();
  if (item?.kind !== "line") throw new Error("expected a line");
  return item.text;
}

describe("ContextServer modern results on a stream (pre-serialised decoration)", () => {
  it("writes exactly the JSON of the object form for a plain result", async () => {
    const { server, peer } = setup();
    const result = { content: [{ type: "text", text: 'hi "you"\n' }] };
    server.handle("tools/call", () => result);
    await peer.send({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "x", _meta: envelope() },
    });
    expect(await nextLine(peer)).toBe(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        result: decorateModernResult(result, SERVER_INFO, "tools/call"),
      }),
    );
  });

  it("keeps a handler's own _meta and resultType, and an async handler's result", async () => {
    const { server, peer } = setup();
    server.handle("tools/call", async () => ({ content: [], _meta: { mine: 1 } }));
    server.handle("prompts/get", () => ({ resultType: "complete", messages: [] }));
    await peer.send({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "x", _meta: envelope() },
    });
    expect(JSON.parse(await nextLine(peer)).result).toEqual({
      content: [],
      resultType: "complete",
      _meta: { mine: 1, "io.modelcontextprotocol/serverInfo": SERVER_INFO },
    });
    await peer.send({
      jsonrpc: "2.0",
      id: 2,
      method: "prompts/get",
      params: { name: "p", _meta: envelope() },
    });
    expect(JSON.parse(await nextLine(peer)).result).toEqual({
      resultType: "complete",
      messages: [],
      _meta: { "io.modelcontextprotocol/serverInfo": SERVER_INFO },
    });
  });

  it("echoes an id beyond 2^53 byte for byte around a text result", async () => {
    const { server, peer } = setup();
    server.handle("tools/call", () => ({ content: [] }));
    const params = JSON.stringify({ name: "x", _meta: envelope() });
    await peer.send(
      new JsonText(`{"jsonrpc":"2.0","id":123456789012345678901,"method":"tools/call","params":${params}}`),
    );
    const line = await nextLine(peer);
    expect(line.startsWith('{"jsonrpc":"2.0","id":123456789012345678901,"result":')).toBe(true);
    expect(JSON.parse(line).result).toEqual(decorateModernResult({ content: [] }, SERVER_INFO, "tools/call"));
  });

  it("writes a result holding a long string as the JSON of the object form, the string escaped exactly", async () => {
    const { server, peer } = setup();
    const text = 'a "quoted" \\ line\n é€😀 \u0001'.repeat(20_000); // 520,000 UTF-16 units: a long string
    server.handle("tools/call", () => ({ content: [{ type: "text", text }] }));
    await peer.send({
      jsonrpc: "2.0",
      id: 8,
      method: "tools/call",
      params: { name: "x", _meta: envelope() },
    });
    expect(await nextLine(peer)).toBe(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 8,
        result: decorateModernResult({ content: [{ type: "text", text }] }, SERVER_INFO, "tools/call"),
      }),
    );
  });

  it("answers -32603 for a result JSON cannot serialize, also beside a long string", async () => {
    const { server, peer } = setup({ onReport: () => {} });
    server.handle("tools/call", () => ({ text: "x".repeat(300_000), n: 1n }));
    await peer.send({
      jsonrpc: "2.0",
      id: 4,
      method: "tools/call",
      params: { name: "x", _meta: envelope() },
    });
    expect(JSON.parse(await nextLine(peer))).toMatchObject({ id: 4, error: { code: -32603 } });
  });

  it("answers -32603 for a result JSON cannot serialize, as before", async () => {
    const { server, peer } = setup({ onReport: () => {} });
    server.handle("tools/call", () => ({ n: 1n }));
    await peer.send({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "x", _meta: envelope() },
    });
    expect(JSON.parse(await nextLine(peer))).toMatchObject({ id: 3, error: { code: -32603 } });
  });

  it("answers -32603 when an async handler's result cannot be written as JSON (a BigInt), sync or async alike", async () => {
    const reported: Error[] = [];
    const { server, peer } = setup({ onReport: (error: Error) => void reported.push(error) });
    server.handle("tools/call", async () => ({ content: [], big: 1n }));
    server.handle("prompts/get", () => ({ messages: [], big: 1n }));
    for (const [id, method] of [[1, "tools/call"], [2, "prompts/get"]] as const) {
      await peer.send({ jsonrpc: "2.0", id, method, params: { name: "x", _meta: envelope() } });
      expect(JSON.parse(await nextLine(peer))).toMatchObject({ id, error: { code: -32603 } });
    }
    expect(reported).toHaveLength(2);
  });
});
