import { describe, expect, it } from "vitest";
import { answerRequest } from "../../../src/rpc/answer_request.ts";
import { InflightRequest } from "../../../src/rpc/inflight_request.ts";
import { requestContext } from "../../../src/rpc/stream_request_context.ts";
import type { SlotHost } from "../../../src/rpc/slot_host.ts";
import type { IncomingRequest } from "../../../src/wire/json_rpc_message.ts";
import { JsonRpcError } from "../../../src/wire/errors.ts";
import { JsonText } from "../../../src/wire/json_text.ts";

function setup() {
  const sent: unknown[] = [];
  const reports: Error[] = [];
  const host: SlotHost = {
    send: async (message) => void sent.push(message),
    sendOwnError: async (reply) => void sent.push(reply),
    outputClosed: false,
    sendFailed: () => {},
    dropFromBacklog: () => [],
    release: () => {},
    settle: () => {},
    report: (error) => reports.push(error),
  };
  return { host, sent, reports };
}

const request = { id: 1, method: "m", params: { a: 1 } } as IncomingRequest;

describe("answerRequest", () => {
  it("sends the handler's result, {} for undefined, -32601 without a handler", async () => {
    const { host, sent } = setup();
    const entry = new InflightRequest();
    await answerRequest(request, {
      entry,
      context: requestContext(request, { entry, host }),
      host,
      handler: (params) => params,
    });
    await answerRequest(request, {
      entry: new InflightRequest(),
      context: requestContext(request, { entry, host }),
      host,
      handler: () => undefined,
    });
    await answerRequest(request, {
      entry: new InflightRequest(),
      context: requestContext(request, { entry, host }),
      host,
    });
    expect(sent).toMatchObject([{ id: 1, result: { a: 1 } }, { id: 1, result: {} }, {
      id: 1,
      error: { code: -32601 },
    }]);
  });

  it("lets a handler take notify out of its context and call it unbound", async () => {
    const { host, sent } = setup();
    const entry = new InflightRequest();
    await answerRequest(request, {
      entry,
      context: requestContext(request, { entry, host }),
      host,
      handler: async (_params, { notify }) => {
        await notify("notifications/progress", { progress: 1 });
        return "done";
      },
    });
    expect(sent).toEqual([{ jsonrpc: "2.0", method: "notifications/progress", params: { progress: 1 } }, {
      jsonrpc: "2.0",
      id: 1,
      result: "done",
    }]);
  });

  it("sends a plain value's reply in the same turn, and a promise's once it settles", async () => {
    const { host, sent } = setup();
    const entry = new InflightRequest();
    void answerRequest(request, {
      entry,
      context: requestContext(request, { entry, host }),
      host,
      handler: () => 1,
    });
    expect(sent).toEqual([{ jsonrpc: "2.0", id: 1, result: 1 }]);
    let resolve!: (value: unknown) => void;
    const later = new InflightRequest();
    const done = answerRequest(request, {
      entry: later,
      context: requestContext(request, { entry: later, host }),
      host,
      handler: () => new Promise((r) => (resolve = r)),
    });
    expect(sent).toHaveLength(1);
    resolve(2);
    await done;
    expect(sent[1]).toEqual({ jsonrpc: "2.0", id: 1, result: 2 });
  });

  it("answers a synchronous throw and a rejection alike", async () => {
    const { host, sent } = setup();
    const a = new InflightRequest();
    await answerRequest(request, {
      entry: a,
      context: requestContext(request, { entry: a, host }),
      host,
      handler: () => {
        throw new JsonRpcError(-32001, "sync");
      },
    });
    const b = new InflightRequest();
    await answerRequest(request, {
      entry: b,
      context: requestContext(request, { entry: b, host }),
      host,
      handler: () => Promise.reject(new JsonRpcError(-32001, "async")),
    });
    expect(sent).toMatchObject([{ id: 1, error: { code: -32001, message: "sync" } }, {
      id: 1,
      error: { code: -32001, message: "async" },
    }]);
  });

  it("splices a JSON text result into the reply, echoing an id literal beyond 2^53", async () => {
    const { host, sent } = setup();
    const big = {
      id: 123456789012345680000,
      idLiteral: "123456789012345678901",
      method: "m",
      params: {},
    } as IncomingRequest;
    const entry = new InflightRequest();
    await answerRequest(big, {
      entry,
      context: requestContext(big, { entry, host }),
      host,
      handler: () => new JsonText('{"a":1}'),
    });
    expect((sent[0] as JsonText).text).toBe('{"jsonrpc":"2.0","id":123456789012345678901,"result":{"a":1}}');
  });

  it("collects the JSON text inside a batch, and sends nothing once the peer cancelled", async () => {
    const { host, sent } = setup();
    const texts: string[] = [];
    const entry = new InflightRequest();
    await answerRequest(request, {
      entry,
      context: requestContext(request, { entry, host }),
      host,
      handler: () => 2,
      collect: (text) => texts.push(text),
    });
    expect(texts.map((t) => JSON.parse(t))).toMatchObject([{ id: 1, result: 2 }]);
    const cancelled = new InflightRequest();
    cancelled.cancelledByPeer = true;
    await answerRequest(request, {
      entry: cancelled,
      context: requestContext(request, { entry: cancelled, host }),
      host,
      handler: () => 3,
    });
    expect(sent).toEqual([]);
  });

  it("a context's notify is a no-op once the request is done", async () => {
    const { host, sent } = setup();
    const entry = new InflightRequest();
    const context = requestContext(request, { entry, host });
    await context.notify("progress", { p: 1 });
    entry.done = true;
    await context.notify("progress", { p: 2 });
    expect(sent).toEqual([{ jsonrpc: "2.0", method: "progress", params: { p: 1 } }]);
  });
});
