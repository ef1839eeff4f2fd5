import { describe, expect, it } from "vitest";
import { BODY_TEXT } from "../../../src/http/request_parts.ts";
import { ResponseChannel } from "../../../src/http/response_channel.ts";

describe("ResponseChannel", () => {
  it("answers a reply that comes first as JSON, with its text beside the body for serve()", async () => {
    const channel = new ResponseChannel({ statusOf: () => 201 });
    await channel.reply({ jsonrpc: "2.0", id: 1, result: { text: "é" } });
    const response = await channel.response;
    expect(response.status).toBe(201);
    expect(response.headers.get("content-type")).toBe("application/json");
    const text = (response as { [BODY_TEXT]?: string })[BODY_TEXT];
    expect(text).toBe('{"jsonrpc":"2.0","id":1,"result":{"text":"é"}}');
    expect(await response.text()).toBe(text);
  });

  it("calls onCancel once, with the reason, when the client cancels the stream; its signal, asked for later, is aborted too", async () => {
    const reasons: unknown[] = [];
    const channel = new ResponseChannel({ onCancel: (reason) => reasons.push(reason) });
    const sent = channel.notify({ jsonrpc: "2.0", method: "notifications/progress" });
    const response = await channel.response;
    await response.body!.cancel(new Error("gone"));
    await sent;
    channel.abort(new Error("second"));
    expect(reasons).toHaveLength(1);
    expect(channel.signal.aborted).toBe(true);
    await expect(channel.send({ jsonrpc: "2.0", id: 1, method: "x" })).rejects.toThrow();
  });

  it("does not call onCancel for a reply sent whole", async () => {
    const reasons: unknown[] = [];
    const channel = new ResponseChannel({ onCancel: (reason) => reasons.push(reason) });
    await channel.reply({ jsonrpc: "2.0", id: 1, result: {} });
    await (await channel.response).text();
    expect(reasons).toEqual([]);
    expect(channel.signal.aborted).toBe(false);
  });
});
