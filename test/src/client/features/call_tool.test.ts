import { describe, expect, it } from "vitest";
import {
  ClientFeatureError,
  InputRequiredError,
  StructuredContentError,
} from "../../../../src/client/features/feature_errors.ts";
import type { ProgressUpdate } from "../../../../src/client/features/feature_types.ts";
import { TimeoutError } from "../../../../src/wire/errors.ts";
import { MetaKeys } from "../../../../src/wire/protocol_versions.ts";
import {
  connectScripted,
  type Handler,
  type Message,
  type Peer,
  type Scripted,
  settle,
  track,
  until,
} from "./helpers.ts";

const WEATHER = {
  name: "weather",
  inputSchema: { type: "object" },
  outputSchema: { type: "object", properties: { temp: { type: "number" } }, required: ["temp"] },
};

/** Lists WEATHER and a schemaless tool; `onCall` answers tools/call. */
function toolServer(onCall: (m: Message, peer: Peer) => void): Handler {
  return (m, peer) => {
    if (m.method === "tools/list") {
      return peer.reply(m.id, { tools: [WEATHER, { name: "free", inputSchema: { type: "object" } }] });
    }
    if (m.method === "tools/call") return onCall(m, peer);
  };
}

const text = (t: string) => [{ type: "text", text: t }];

describe.each(["modern", "legacy"] as const)("callTool (%s era)", (era) => {
  it("sends name and arguments and resolves with the result", async () => {
    const s = await connectScripted(
      era,
      toolServer((m, peer) => peer.reply(m.id, { content: text(`hi ${m.params.arguments.who}`) })),
    );
    const result = await s.client.callTool("free", { who: "Ada" });
    expect(result.content).toEqual(text("hi Ada"));
    expect(s.requests("tools/call")[0].params).toMatchObject({ name: "free", arguments: { who: "Ada" } });
    await s.client.close();
  });

  it("mints a progress token per call and feeds onProgress from notifications/progress of that token only", async () => {
    const calls: Message[] = [];
    const s = await connectScripted(era, toolServer((m) => void calls.push(m)));
    const a: ProgressUpdate[] = [];
    const b: ProgressUpdate[] = [];
    const first = s.client.callTool("free", {}, { onProgress: (p) => a.push(p) });
    const second = s.client.callTool("free", {}, { onProgress: (p) => b.push(p) });
    await until(() => calls.length === 2);
    const [ta, tb] = calls.map((m) => m.params._meta.progressToken);
    expect(ta).not.toEqual(tb);
    s.peer.send({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: ta, progress: 1, total: 3, message: "one" },
    });
    s.peer.send({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: tb, progress: 5 },
    });
    s.peer.send({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: "someone-else", progress: 9 },
    });
    await until(() => a.length === 1 && b.length === 1);
    expect(a).toEqual([{ progress: 1, total: 3, message: "one" }]);
    expect(b).toEqual([{ progress: 5 }]);
    s.peer.reply(calls[0].id, { content: [] });
    s.peer.reply(calls[1].id, { content: [] });
    await Promise.all([first, second]);
    s.peer.send({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: ta, progress: 2 },
    });
    await settle();
    expect(a).toHaveLength(1);
    await s.client.close();
  });

  it("sends no progress token without onProgress", async () => {
    const s = await connectScripted(era, toolServer((m, peer) => peer.reply(m.id, { content: [] })));
    await s.client.callTool("free");
    expect(s.requests("tools/call")[0].params._meta?.progressToken).toBeUndefined();
    await s.client.close();
  });

  it("times out after `timeout` ms without a reply, cancels on the wire, and rejects with a TimeoutError", async () => {
    const s = await connectScripted(era, toolServer(() => {}));
    const call = track(s.client.callTool("free", {}, { timeout: 1_000 }));
    await until(() => s.requests("tools/call").length === 1);
    await s.time.advance(999);
    expect(call.settled).toBe(false);
    await s.time.advance(1);
    await until(() => call.settled);
    expect(call.error).toBeInstanceOf(TimeoutError);
    expect((call.error as TimeoutError).timeoutMs).toBe(1_000);
    await until(() => s.received().some((m) => m.method === "notifications/cancelled"));
    const cancel = s.received().find((m) => m.method === "notifications/cancelled");
    expect(cancel.params.requestId).toBe(s.requests("tools/call")[0].id);
    await s.client.close();
  });

  it("each progress notification restarts the timeout", async () => {
    const s = await connectScripted(era, toolServer(() => {}));
    const seen: number[] = [];
    const call = track(
      s.client.callTool("free", {}, { timeout: 1_000, onProgress: (p) => seen.push(p.progress) }),
    );
    await until(() => s.requests("tools/call").length === 1);
    const token = s.requests("tools/call")[0].params._meta.progressToken;
    for (let i = 1; i <= 3; i++) {
      await s.time.advance(900);
      s.peer.send({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: token, progress: i },
      });
      await until(() => seen.length === i);
    }
    await s.time.advance(999);
    expect(call.settled).toBe(false);
    await s.time.advance(1);
    await until(() => call.settled);
    expect(call.error).toBeInstanceOf(TimeoutError);
    await s.client.close();
  });

  it("progress cannot push the wait past maxTimeout; the error names it", async () => {
    const s = await connectScripted(era, toolServer(() => {}));
    let seen = 0;
    const call = track(
      s.client.callTool("free", {}, { timeout: 1_000, maxTimeout: 2_500, onProgress: () => void seen++ }),
    );
    await until(() => s.requests("tools/call").length === 1);
    const token = s.requests("tools/call")[0].params._meta.progressToken;
    for (let i = 1; i <= 2; i++) {
      await s.time.advance(900);
      s.peer.send({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: token, progress: i },
      });
      await until(() => seen === i);
    }
    await s.time.advance(699); // 2 499 ms since the start
    expect(call.settled).toBe(false);
    await s.time.advance(1);
    await until(() => call.settled);
    expect(call.error).toBeInstanceOf(TimeoutError);
    expect((call.error as TimeoutError).timeoutMs).toBe(2_500);
    expect((call.error as Error).message).toMatch(/maxTimeout \(2500 ms\)/);
    await s.client.close();
  });

  it("the client-wide requestTimeout is the default", async () => {
    const s = await connectScripted(era, toolServer(() => {}), {
      client: { features: { requestTimeout: 300 } },
    });
    const call = track(s.client.callTool("free"));
    await until(() => s.requests("tools/call").length === 1);
    await s.time.advance(299);
    expect(call.settled).toBe(false);
    await s.time.advance(1);
    await until(() => call.settled);
    expect(call.error).toBeInstanceOf(TimeoutError);
    await s.client.close();
  });

  it("aborting the signal cancels the call with the signal's reason", async () => {
    const s = await connectScripted(era, toolServer(() => {}));
    const controller = new AbortController();
    const call = track(s.client.callTool("free", {}, { signal: controller.signal }));
    await until(() => s.requests("tools/call").length === 1);
    controller.abort(new Error("User gave up"));
    await until(() => call.settled);
    expect((call.error as Error).message).toBe("User gave up");
    await until(() => s.received().some((m) => m.method === "notifications/cancelled"));
    await s.client.close();
  });

  it("structuredContent that matches the output schema of the last tools/list passes", async () => {
    const s = await connectScripted(
      era,
      toolServer((m, peer) => peer.reply(m.id, { content: [], structuredContent: { temp: 21 } })),
    );
    await s.client.listTools();
    expect((await s.client.callTool("weather")).structuredContent).toEqual({ temp: 21 });
    await s.client.close();
  });

  it("structuredContent that does not match is a StructuredContentError with the issues and the result", async () => {
    const s = await connectScripted(
      era,
      toolServer((m, peer) => peer.reply(m.id, { content: [], structuredContent: { temp: "warm" } })),
    );
    await s.client.listTools();
    const error = await s.client.callTool("weather").catch((e) => e);
    expect(error).toBeInstanceOf(StructuredContentError);
    expect(error).toBeInstanceOf(ClientFeatureError);
    expect(error.code).toBe("structured_content_invalid");
    expect(error.tool).toBe("weather");
    expect(error.issues[0].path).toBe("/temp");
    expect(error.result.structuredContent).toEqual({ temp: "warm" });
    expect(error.message).toMatch(/^Tool "weather" returned structuredContent/);
    await s.client.close();
  });

  it("missing structuredContent is a mismatch; an isError result is not checked", async () => {
    let reply: Record<string, unknown> = { content: text("no data") };
    const s = await connectScripted(era, toolServer((m, peer) => peer.reply(m.id, reply)));
    await s.client.listTools();
    await expect(s.client.callTool("weather")).rejects.toMatchObject({
      code: "structured_content_invalid",
      message: expect.stringMatching(/missing/),
    });
    reply = { content: text("failed"), isError: true };
    expect((await s.client.callTool("weather")).isError).toBe(true);
    await s.client.close();
  });

  it("nothing is checked without a known schema, or with validateOutput: false", async () => {
    const s = await connectScripted(
      era,
      toolServer((m, peer) => peer.reply(m.id, { content: [], structuredContent: { temp: "warm" } })),
    );
    expect((await s.client.callTool("weather")).structuredContent).toEqual({ temp: "warm" }); // no tools/list yet
    await s.client.listTools();
    expect((await s.client.callTool("free")).structuredContent).toEqual({ temp: "warm" });
    expect((await s.client.callTool("weather", {}, { validateOutput: false })).structuredContent).toEqual({
      temp: "warm",
    });
    await s.client.close();
  });

  it("the output schema is compiled once, however many calls check it", async () => {
    let compiles = 0;
    const s = await connectScripted(
      era,
      toolServer((m, peer) => peer.reply(m.id, { content: [], structuredContent: { temp: 1 } })),
      {
        client: {
          features: {
            schemaValidator: {
              compile: () => {
                compiles++;
                return { validate: () => ({ valid: true }) };
              },
            },
          },
        },
      },
    );
    await s.client.listTools();
    for (let i = 0; i < 3; i++) await s.client.callTool("weather");
    expect(compiles).toBe(1);
    await s.client.close();
  });

  it("an output schema that cannot be compiled is an output_schema_invalid error naming the tool", async () => {
    const s = await connectScripted(era, (m, peer) => {
      if (m.method === "tools/list") {
        return peer.reply(m.id, {
          tools: [{
            name: "odd",
            inputSchema: { type: "object" },
            outputSchema: { type: "object", $ref: "#/$defs/missing" },
          }],
        });
      }
      peer.reply(m.id, { content: [], structuredContent: {} });
    });
    await s.client.listTools();
    const error = await s.client.callTool("odd").catch((e) => e);
    expect(error.code).toBe("output_schema_invalid");
    expect(error.message).toMatch(/^Tool "odd" has an output schema that cannot be compiled/);
    await s.client.close();
  });

  it("a progress notification whose progress is not a number is reported, not passed on", async () => {
    const calls: Message[] = [];
    const s = await connectScripted(era, toolServer((m) => void calls.push(m)));
    const seen: ProgressUpdate[] = [];
    const call = s.client.callTool("free", {}, { onProgress: (p) => seen.push(p) });
    await until(() => calls.length === 1);
    const token = calls[0].params._meta.progressToken;
    s.peer.send({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: token, progress: "half" },
    });
    await until(() => s.reports.length === 1);
    expect(s.reports[0].message).toMatch(/^Progress notification .* not a number: "half"/);
    s.peer.reply(calls[0].id, { content: [] });
    await call;
    expect(seen).toEqual([]);
    await s.client.close();
  });

  it("a result without a content array is an invalid_result", async () => {
    const s = await connectScripted(
      era,
      toolServer((m, peer) => peer.reply(m.id, { structuredContent: {} })),
    );
    await expect(s.client.callTool("free")).rejects.toMatchObject({ code: "invalid_result" });
    await s.client.close();
  });
});

/** Settles `promise` on the scripted client's fake clock: lets messages land, then moves time on, until it settles. */
async function onFakeTime<T>(s: Scripted, promise: Promise<T>, stepMs = 250): Promise<T> {
  const state = track(promise);
  for (let i = 0; i < 100 && !state.settled; i++) {
    await settle();
    if (!state.settled) await s.time.advance(stepMs);
  }
  return promise;
}

describe("callTool and input_required (modern era)", () => {
  const elicit = {
    method: "elicitation/create",
    params: { mode: "form", message: "Sure?", requestedSchema: { type: "object", properties: {} } },
  };

  it("without a handler, an input_required result is an InputRequiredError carrying the result", async () => {
    const s = await connectScripted(
      "modern",
      toolServer((m, peer) =>
        peer.reply(m.id, { resultType: "input_required", inputRequests: { ok: elicit }, requestState: "s1" })
      ),
    );
    const error = await s.client.callTool("free").catch((e) => e);
    expect(error).toBeInstanceOf(InputRequiredError);
    expect(error.code).toBe("input_required");
    expect(error.result.requestState).toBe("s1");
    await s.client.close();
  });

  it("with a handler, retries with a new id, the answers and the byte-exact requestState", async () => {
    const state = "opaque \u00e9 state/+==";
    const s = await connectScripted(
      "modern",
      toolServer((m, peer) => {
        if (m.params.inputResponses === undefined) {
          return peer.reply(m.id, {
            resultType: "input_required",
            inputRequests: { ok: elicit },
            requestState: state,
          });
        }
        peer.reply(m.id, {
          resultType: "complete",
          content: text(`answer ${m.params.inputResponses.ok.action}`),
        });
      }),
    );
    s.client.handle(
      "elicitation/create",
      (params) => ({
        action: (params as { message: string }).message === "Sure?" ? "accept" : "decline",
        content: {},
      }),
    );
    const result = await s.client.callTool("free", { x: 1 });
    expect(result.content).toEqual(text("answer accept"));
    const [first, retry] = s.requests("tools/call");
    expect(retry.id).not.toEqual(first.id);
    expect(retry.params.requestState).toBe(state);
    expect(retry.params.arguments).toEqual({ x: 1 });
    expect(retry.params.inputResponses).toEqual({ ok: { action: "accept", content: {} } });
    await s.client.close();
  });

  it("requestState alone (load shedding) is echoed without inputResponses", async () => {
    const s = await connectScripted(
      "modern",
      toolServer((m, peer) => {
        if (m.params.requestState === undefined) {
          return peer.reply(m.id, { resultType: "input_required", requestState: "later" });
        }
        peer.reply(m.id, { content: [] });
      }),
    );
    await onFakeTime(s, s.client.callTool("free"));
    const retry = s.requests("tools/call")[1];
    expect(retry.params.requestState).toBe("later");
    expect(retry.params.inputResponses).toBeUndefined();
    await s.client.close();
  });

  it("maxInputRounds holds: after that many retries the result goes to the caller", async () => {
    const s = await connectScripted(
      "modern",
      toolServer((m, peer) => peer.reply(m.id, { resultType: "input_required", requestState: "again" })),
      {
        client: { features: { maxInputRounds: 2 } },
      },
    );
    await expect(onFakeTime(s, s.client.callTool("free"))).rejects.toMatchObject({
      code: "input_required",
      message: expect.stringMatching(/2 rounds/),
    });
    expect(s.requests("tools/call")).toHaveLength(3);
    await s.client.close();
  });

  it("maxInputRounds is not hit early: a server that needs exactly that many rounds gets its answer", async () => {
    const s = await connectScripted(
      "modern",
      toolServer((m, peer) => {
        const round = m.params.requestState === undefined ? 0 : Number(m.params.requestState);
        if (round < 2) {
          return peer.reply(m.id, { resultType: "input_required", requestState: String(round + 1) });
        }
        peer.reply(m.id, { content: text("after two rounds") });
      }),
      { client: { features: { maxInputRounds: 2 } } },
    );
    expect((await onFakeTime(s, s.client.callTool("free"))).content).toEqual(text("after two rounds"));
    expect(s.requests("tools/call")).toHaveLength(3);
    await s.client.close();
  });

  it("a state-only retry waits the client inputs' stateOnlyRetryDelay (250 ms), not less: the loop request() runs", async () => {
    const s = await connectScripted(
      "modern",
      toolServer((m, peer) => {
        if (m.params.requestState === undefined) {
          return peer.reply(m.id, { resultType: "input_required", requestState: "later" });
        }
        peer.reply(m.id, { content: text("later") });
      }),
    );
    const call = track(s.client.callTool("free"));
    await until(() => s.requests("tools/call").length === 1, "the first call");
    await settle();
    await s.time.advance(249);
    await settle();
    expect(s.requests("tools/call")).toHaveLength(1);
    await s.time.advance(1);
    await until(() => call.settled, "the retried call");
    expect(s.requests("tools/call")).toHaveLength(2);
    expect(call.value?.content).toEqual(text("later"));
    await s.client.close();
  });

  it("request() and callTool() answer input requests alike: a handle() handler first, then the inputs' one", async () => {
    const s = await connectScripted(
      "modern",
      toolServer((m, peer) => {
        if (m.params.inputResponses === undefined) {
          return peer.reply(m.id, {
            resultType: "input_required",
            inputRequests: { ok: elicit },
            requestState: "s",
          });
        }
        peer.reply(m.id, { content: text(`answer ${m.params.inputResponses.ok.action}`) });
      }),
    );
    s.client.onElicit(() => ({ action: "decline" }));
    expect(await s.client.request("tools/call", { name: "free" })).toEqual({
      content: text("answer decline"),
    });
    s.client.handle("elicitation/create", () => ({ action: "accept", content: {} }));
    expect(await s.client.request("tools/call", { name: "free" })).toEqual({
      content: text("answer accept"),
    });
    expect((await s.client.callTool("free")).content).toEqual(text("answer accept"));
    await s.client.close();
  });

  it("request() declares the clientCapabilities it is given instead of the client's own (a gateway passing a request on)", async () => {
    const s = await connectScripted("modern", toolServer((m, peer) => peer.reply(m.id, { content: [] })));
    s.client.onElicit(() => ({ action: "decline" }));
    await s.client.request("tools/call", { name: "free" }, {
      clientCapabilities: { roots: {} },
      inputRequired: "manual",
    });
    await s.client.request("tools/call", { name: "free" });
    const [given, own] = s.requests("tools/call");
    expect(given.params._meta[MetaKeys.clientCapabilities]).toEqual({ roots: {} });
    expect(own.params._meta[MetaKeys.clientCapabilities]).toEqual({ elicitation: { form: {} } });
    await s.client.close();
  });

  it("an input_required without inputRequests or requestState is an invalid_result", async () => {
    const s = await connectScripted(
      "modern",
      toolServer((m, peer) => peer.reply(m.id, { resultType: "input_required" })),
    );
    await expect(s.client.callTool("free")).rejects.toMatchObject({
      code: "invalid_result",
      message: expect.stringMatching(/neither inputRequests nor requestState/),
    });
    expect(s.requests("tools/call")).toHaveLength(1);
    await s.client.close();
  });

  it("input requests of one round are answered in parallel, each under its key", async () => {
    const s = await connectScripted(
      "modern",
      toolServer((m, peer) => {
        if (m.params.inputResponses === undefined) {
          return peer.reply(m.id, { resultType: "input_required", inputRequests: { a: elicit, b: elicit } });
        }
        peer.reply(m.id, { content: text(JSON.stringify(m.params.inputResponses)) });
      }),
    );
    const started: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    s.client.handle("elicitation/create", async (_params, context) => {
      started.push(String(context.id));
      await gate;
      return { action: "accept", content: { key: String(context.id) } };
    });
    const call = track(s.client.callTool("free"));
    await until(() => started.length === 2, "both handlers started before either answered");
    release();
    await until(() => call.settled, "the retried call");
    expect(started.sort()).toEqual(["a", "b"]);
    expect(JSON.parse((call.value!.content[0] as { text: string }).text)).toEqual({
      a: { action: "accept", content: { key: "a" } },
      b: { action: "accept", content: { key: "b" } },
    });
    await s.client.close();
  });

  it("an unknown resultType is an invalid_result", async () => {
    const s = await connectScripted(
      "modern",
      toolServer((m, peer) => peer.reply(m.id, { resultType: "task", content: [] })),
    );
    await expect(s.client.callTool("free")).rejects.toMatchObject({ code: "invalid_result" });
    await s.client.close();
  });

  it("the modern per-request log level rides in _meta, beside the progress token", async () => {
    const s = await connectScripted("modern", toolServer((m, peer) => peer.reply(m.id, { content: [] })));
    await s.client.setLogLevel("warning");
    await s.client.callTool("free", {}, { onProgress: () => {} });
    const meta = s.requests("tools/call")[0].params._meta;
    expect(meta[MetaKeys.logLevel]).toBe("warning");
    expect(typeof meta.progressToken).toBe("string");
    expect(meta[MetaKeys.protocolVersion]).toBe("2026-07-28");
    await s.client.close();
  });
});
