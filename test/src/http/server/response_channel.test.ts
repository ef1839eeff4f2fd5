import { describe, expect, it } from "vitest";
import { TextReply } from "../../../../src/http/server/request_parts.ts";
import { ResponseChannel } from "../../../../src/http/server/response_channel.ts";
import { StreamReply } from "../../../../src/http/server/sse/stream_reply.ts";
import { CancelledError } from "../../../../src/wire/errors.ts";
import { JsonText } from "../../../../src/wire/json_text.ts";

describe("ResponseChannel", () => {
  it("answers a reply that comes first as a JSON Response, with the status statusOf gives and the extra headers", async () => {
    const channel = new ResponseChannel({ statusOf: () => 201, headers: { "Mcp-Session-Id": "s1" } });
    await channel.reply({ jsonrpc: "2.0", id: 1, result: { text: "é" } });
    const response = (await channel.response) as Response;
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(201);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("mcp-session-id")).toBe("s1");
    expect(await response.text()).toBe('{"jsonrpc":"2.0","id":1,"result":{"text":"é"}}');
  });

  it("answers it as a TextReply instead when textReply is set, and as a StreamReply (SSE frames, no Response) once a notification went first", async () => {
    const channel = new ResponseChannel({
      statusOf: () => 201,
      headers: { "Mcp-Session-Id": "s1" },
      textReply: true,
    });
    await channel.reply({ jsonrpc: "2.0", id: 1, result: {} });
    const reply = await channel.response;
    expect(reply).toBeInstanceOf(TextReply);
    expect(reply).toMatchObject({
      status: 201,
      headers: { "content-type": "application/json", "mcp-session-id": "s1" },
      text: '{"jsonrpc":"2.0","id":1,"result":{}}',
    });
    const streamed = new ResponseChannel({ textReply: true, headers: { "Mcp-Session-Id": "s1" } });
    void streamed.notify({ jsonrpc: "2.0", method: "notifications/progress" });
    void streamed.reply({ jsonrpc: "2.0", id: 1, result: {} });
    const stream = await streamed.response;
    expect(stream).toBeInstanceOf(StreamReply);
    expect(stream).toMatchObject({
      status: 200,
      headers: {
        "content-type": "text/event-stream",
        "cache-control": "no-cache, no-transform",
        "mcp-session-id": "s1",
      },
    });
    const { source } = stream as StreamReply;
    const frames: string[] = [];
    for (let frame = await source.nextFrame(); frame !== undefined; frame = await source.nextFrame()) {
      frames.push(new TextDecoder().decode(frame));
    }
    expect(frames).toEqual([
      'data: {"jsonrpc":"2.0","method":"notifications/progress"}\n\n',
      'data: {"jsonrpc":"2.0","id":1,"result":{}}\n\n',
    ]);
    await streamed.closed;
  });

  it("a StreamReply's reader going away cancels the channel as a Response body's cancel does", async () => {
    const reasons: unknown[] = [];
    const channel = new ResponseChannel({ textReply: true, onCancel: (reason) => reasons.push(reason) });
    channel.openStream();
    const { source } = (await channel.response) as StreamReply;
    const waiting = source.nextFrame();
    source.cancel(new Error("gone"));
    await expect(waiting).rejects.toBeInstanceOf(CancelledError);
    expect(reasons).toHaveLength(1);
    expect(channel.signal.aborted).toBe(true);
    await channel.closed;
  });

  it("calls onCancel once, with the reason, when the client cancels the stream; its signal, asked for later, is aborted too", async () => {
    const reasons: unknown[] = [];
    const channel = new ResponseChannel({ onCancel: (reason) => reasons.push(reason) });
    const sent = channel.notify({ jsonrpc: "2.0", method: "notifications/progress" });
    const response = (await channel.response) as Response;
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
    await ((await channel.response) as Response).text();
    expect(reasons).toEqual([]);
    expect(channel.signal.aborted).toBe(false);
  });

  it("splices a result given as JSON text into the reply: the same bytes as the object form, JSON or SSE", async () => {
    const result = {
      content: [{ type: "text", text: 'é "q"' }],
      resultType: "complete",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "s", version: "1" } },
    };
    const objectForm = JSON.stringify({ jsonrpc: "2.0", id: "a\u2028", result });
    const json = new ResponseChannel({ textReply: true });
    await json.reply({ jsonrpc: "2.0", id: "a\u2028", result: new JsonText(JSON.stringify(result)) });
    expect(((await json.response) as TextReply).text).toBe(objectForm);

    const sse = new ResponseChannel({ textReply: true });
    void sse.notify({ jsonrpc: "2.0", method: "notifications/progress" });
    const response = ((await sse.response) as StreamReply).toResponse();
    await sse.reply({ jsonrpc: "2.0", id: "a\u2028", result: new JsonText(JSON.stringify(result)) });
    const events = (await response.text()).split("\n").filter((line) => line.startsWith("data:"));
    expect(events.at(-1)!.slice(5).trim()).toBe(objectForm);
  });
});
