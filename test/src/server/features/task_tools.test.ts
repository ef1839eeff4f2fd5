import { describe, expect, it } from "vitest";
import { ContextServer } from "../../../../src/server/context_server.ts";
import type { DispatchContext } from "../../../../src/server/dispatch_context.ts";
import { MetaKeys } from "../../../../src/wire/protocol_versions.ts";
import { JsonRpcError } from "../../../../src/wire/errors.ts";
import { TASKS_EXTENSION } from "../../../../src/tasks/task_record.ts";
import { MemoryTaskStore } from "../../../../src/tasks/memory_task_store.ts";
import { FakeTimeProvider, flushMicrotasks } from "../../../../testing/fake_time_provider.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const WITH_TASKS = { elicitation: {}, extensions: { [TASKS_EXTENSION]: {} } };

function setup() {
  const time = new FakeTimeProvider();
  const server = new ContextServer({ name: "tasks-test", version: "1", timeProvider: time });
  const notes: { method: string; params: Json }[] = [];
  let id = 0;
  const dispatch = async (
    method: string,
    params: Json = {},
    capabilities: Json = WITH_TASKS,
    signal?: AbortSignal,
  ) => {
    const context: DispatchContext = {
      signal: signal ?? new AbortController().signal,
      notify: (m, p) => {
        notes.push({ method: m, params: p });
        return Promise.resolve();
      },
    };
    const _meta = {
      [MetaKeys.protocolVersion]: "2026-07-28",
      [MetaKeys.clientCapabilities]: capabilities,
      [MetaKeys.clientInfo]: { name: "c", version: "1" },
    };
    const reply: Json = await server.dispatch({
      jsonrpc: "2.0",
      id: ++id,
      method,
      params: { ...params, _meta },
    }, context);
    return reply;
  };
  const settle = async () => {
    await flushMicrotasks();
    await time.advance(0);
    await flushMicrotasks();
  };
  return { server, time, dispatch, notes, settle };
}

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open: () => open(), opened };
}

describe("tools with task support (io.modelcontextprotocol/tasks)", () => {
  it("declares the extension in server/discover once a tool with task support is registered", async () => {
    const { server, dispatch } = setup();
    server.tool("sync", {}, () => "x");
    expect((await dispatch("server/discover")).result.capabilities.extensions).toBeUndefined();
    server.tool("job", { taskSupport: "optional" }, () => "x");
    expect((await dispatch("server/discover")).result.capabilities.extensions).toEqual({
      [TASKS_EXTENSION]: {},
    });
  });

  it("answers a flat CreateTaskResult that tasks/get finds at once, then the inlined result", async () => {
    const { server, dispatch, settle } = setup();
    const go = gate();
    server.tool("job", { taskSupport: "optional" }, async () => {
      await go.opened;
      return "finished";
    });
    const created = (await dispatch("tools/call", { name: "job", arguments: {} })).result;
    expect(created).toMatchObject({
      resultType: "task",
      status: "working",
      ttlMs: 3_600_000,
      pollIntervalMs: 1000,
    });
    for (const absent of ["result", "error", "inputRequests", "requestState", "task"]) {
      expect(created).not.toHaveProperty(absent);
    }
    expect(created.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const working = (await dispatch("tasks/get", { taskId: created.taskId })).result;
    expect(working).toMatchObject({ taskId: created.taskId, status: "working", resultType: "complete" });
    go.open();
    await settle();
    const done = (await dispatch("tasks/get", { taskId: created.taskId })).result;
    expect(done).toMatchObject({
      status: "completed",
      result: { content: [{ type: "text", text: "finished" }] },
    });
  });

  it("runs an optional tool synchronously for a client without the extension, and answers -32021 for a required one", async () => {
    const { server, dispatch } = setup();
    server.tool("optional", { taskSupport: "optional" }, () => "sync answer");
    server.tool("required", { taskSupport: "required" }, () => "never");
    const sync = (await dispatch("tools/call", { name: "optional" }, {})).result;
    expect(sync).toMatchObject({ resultType: "complete", content: [{ text: "sync answer" }] });
    expect(sync.taskId).toBeUndefined();
    const refused = (await dispatch("tools/call", { name: "required" }, {})).error;
    expect(refused.code).toBe(-32021);
    expect(refused.data.requiredCapabilities.extensions[TASKS_EXTENSION]).toEqual({});
  });

  it("gates tasks/get|update|cancel on the extension (-32021), knows no tasks/result or tasks/list (-32601), and answers -32602 for an unknown task", async () => {
    const { server, dispatch } = setup();
    server.tool("job", { taskSupport: "optional" }, () => "x");
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      expect((await dispatch(method, { taskId: "x", inputResponses: {} }, {})).error.code).toBe(-32021);
      expect((await dispatch(method, { taskId: "nope", inputResponses: {} })).error.code).toBe(-32602);
    }
    expect((await dispatch("tasks/result", { taskId: "x" })).error.code).toBe(-32601);
    expect((await dispatch("tasks/list", {})).error.code).toBe(-32601);
  });

  it("a tool error completes the task with isError; a JsonRpcError fails it with the error inlined", async () => {
    const { server, dispatch, settle } = setup();
    server.tool("tool_error", { taskSupport: "optional" }, () => {
      throw new Error("bad input");
    });
    server.tool("protocol_error", { taskSupport: "optional" }, () => {
      throw new JsonRpcError(-32603, "broken");
    });
    const a = (await dispatch("tools/call", { name: "tool_error" })).result.taskId;
    const b = (await dispatch("tools/call", { name: "protocol_error" })).result.taskId;
    await settle();
    expect((await dispatch("tasks/get", { taskId: a })).result).toMatchObject({
      status: "completed",
      result: { isError: true },
    });
    const failed = (await dispatch("tasks/get", { taskId: b })).result;
    expect(failed).toMatchObject({ status: "failed", error: { code: -32603, message: "broken" } });
    expect(failed.result).toBeUndefined();
  });

  it("ctx.elicit in a task is input_required; tasks/update resumes it, and a malformed answer is -32602", async () => {
    const { server, dispatch, settle } = setup();
    server.tool("ask", { taskSupport: "optional" }, async (_args, ctx) => {
      const answer = await ctx.elicit({
        message: "Sure?",
        requestedSchema: { type: "object", properties: {} },
      });
      return `answer: ${answer.action}`;
    });
    const taskId = (await dispatch("tools/call", { name: "ask" })).result.taskId;
    await settle();
    const waiting = (await dispatch("tasks/get", { taskId })).result;
    expect(waiting.status).toBe("input_required");
    const [key] = Object.keys(waiting.inputRequests);
    expect(waiting.inputRequests[key]).toMatchObject({
      method: "elicitation/create",
      params: { message: "Sure?" },
    });
    expect(
      (await dispatch("tasks/update", { taskId, inputResponses: { [key]: { action: "maybe" } } })).error.code,
    )
      .toBe(-32602);
    const ack = (await dispatch("tasks/update", {
      taskId,
      inputResponses: { [key]: { action: "accept", content: {} } },
    }))
      .result;
    expect(ack).toEqual({ resultType: "complete", _meta: expect.anything() });
    await settle();
    expect((await dispatch("tasks/get", { taskId })).result).toMatchObject({
      status: "completed",
      result: { content: [{ text: "answer: accept" }] },
    });
  });

  it("tasks/cancel aborts the handler's signal and the task ends cancelled; a second cancel is still an empty ack", async () => {
    const { server, dispatch, settle } = setup();
    let signal: AbortSignal | undefined;
    server.tool("forever", { taskSupport: "optional" }, (_args, ctx) => {
      signal = ctx.signal;
      return new Promise(() => {});
    });
    const taskId = (await dispatch("tools/call", { name: "forever" })).result.taskId;
    await settle();
    expect(signal?.aborted).toBe(false);
    const ack = (await dispatch("tasks/cancel", { taskId })).result;
    expect(Object.keys(ack).filter((k) => k !== "_meta")).toEqual(["resultType"]);
    expect(signal?.aborted).toBe(true);
    expect((await dispatch("tasks/get", { taskId })).result.status).toBe("cancelled");
    expect((await dispatch("tasks/cancel", { taskId })).result.resultType).toBe("complete");
  });

  it("taskStart manual: input rounds first (no task), then ctx.runAsTask() answers a CreateTaskResult without requestState", async () => {
    const { server, dispatch, settle } = setup();
    server.tool("compose", { taskSupport: "required", taskStart: "manual" }, async (_args, ctx) => {
      const answer = await ctx.elicit({
        message: "Name?",
        requestedSchema: { type: "object", properties: {} },
      }, {
        key: "user_name",
      });
      await ctx.runAsTask();
      return `Hello ${(answer.content as Json)?.name} in ${ctx.taskId}`;
    });
    server.tool("maybe", { taskSupport: "optional", taskStart: "manual" }, () => "quick");
    const round1 = (await dispatch("tools/call", { name: "compose" })).result;
    expect(round1.resultType).toBe("input_required");
    expect(round1.taskId).toBeUndefined();
    const round2 = (await dispatch("tools/call", {
      name: "compose",
      inputResponses: { user_name: { action: "accept", content: { name: "Alice" } } },
      requestState: round1.requestState,
    })).result;
    expect(round2.resultType).toBe("task");
    expect(round2).not.toHaveProperty("requestState");
    await settle();
    expect((await dispatch("tasks/get", { taskId: round2.taskId })).result.result.content[0].text).toBe(
      `Hello Alice in ${round2.taskId}`,
    );
    expect((await dispatch("tools/call", { name: "maybe" })).result).toMatchObject({
      resultType: "complete",
    });
  });

  it("progress becomes the task's statusMessage, and notifications/tasks reach a listen stream that named the task", async () => {
    const { server, dispatch, notes, settle } = setup();
    const go = gate();
    server.tool("job", { taskSupport: "optional" }, async (_args, ctx) => {
      await ctx.sendProgress(1, { total: 2, message: "half way" });
      await go.opened;
      return "done";
    });
    const taskId = (await dispatch("tools/call", { name: "job" })).result.taskId;
    await settle();
    expect((await dispatch("tasks/get", { taskId })).result.statusMessage).toBe("half way");
    expect((await dispatch("subscriptions/listen", { notifications: { taskIds: [taskId] } }, {})).error.code)
      .toBe(
        -32021,
      );
    const stop = new AbortController();
    const listening = dispatch(
      "subscriptions/listen",
      { notifications: { taskIds: [taskId] } },
      WITH_TASKS,
      stop.signal,
    );
    await settle();
    const ack = notes.find((n) => n.method === "notifications/subscriptions/acknowledged");
    expect(ack?.params.notifications.taskIds).toEqual([taskId]);
    go.open();
    await settle();
    const pushed = notes.filter((n) => n.method === "notifications/tasks");
    expect(pushed.at(-1)?.params).toMatchObject({
      taskId,
      status: "completed",
      result: { content: [{ text: "done" }] },
    });
    stop.abort();
    await listening;
  });

  it("keeps every tool synchronous in the legacy era", async () => {
    const { server } = setup();
    server.tool("job", { taskSupport: "required" }, () => "legacy answer");
    const session = {
      legacy: { protocolVersion: "2025-11-25", clientInfo: undefined, clientCapabilities: WITH_TASKS },
    };
    const context = { session, signal: new AbortController().signal, notify: () => Promise.resolve() };
    const reply: Json = await server.dispatch({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "job" },
    }, context);
    expect(reply.result).toEqual({ content: [{ type: "text", text: "legacy answer" }] });
    const get: Json = await server.dispatch({
      jsonrpc: "2.0",
      id: 2,
      method: "tasks/get",
      params: { taskId: "x" },
    }, context);
    expect(get.error.code).toBe(-32601);
  });

  it("refuses a bad taskSupport or taskStart at registration", () => {
    const { server } = setup();
    expect(() => server.tool("a", { taskSupport: "sometimes" as never }, () => "x")).toThrow(/taskSupport/);
    expect(() => server.tool("b", { taskStart: "later" as never }, () => "x")).toThrow(/taskStart/);
  });
});

describe("ContextServer.close and tasks", () => {
  it("stops the task engine it made: no lease renewal timer is left behind", async () => {
    const time = new FakeTimeProvider();
    const server = new ContextServer({ name: "t", version: "1", timeProvider: time });
    server.tool("forever", { taskSupport: "optional" }, () => new Promise(() => {}));
    const context = { signal: new AbortController().signal, notify: () => Promise.resolve() };
    const _meta = {
      [MetaKeys.protocolVersion]: "2026-07-28",
      [MetaKeys.clientCapabilities]: WITH_TASKS,
      [MetaKeys.clientInfo]: { name: "c", version: "1" },
    };
    await server.dispatch(
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "forever", _meta } },
      context,
    );
    expect(time.pendingTimers).toBe(1);
    expect(server.features.taskEngine.runningCount).toBe(1);
    await server.close();
    expect(time.pendingTimers).toBe(0);
    expect(server.features.taskEngine.runningCount).toBe(0);
  });
});

describe("a full task store", () => {
  it("answers a tools/call that cannot become a task with -32603 task_store_full, and takes it again once room is made", async () => {
    const time = new FakeTimeProvider();
    const store = new MemoryTaskStore({ maxTasks: 2, timeProvider: time });
    const server = new ContextServer({
      name: "t",
      version: "1",
      timeProvider: time,
      features: { tasks: { store } },
    });
    let finish: (() => void) | undefined;
    server.tool("forever", { taskSupport: "optional" }, () => new Promise<string>(() => {}));
    server.tool(
      "quick",
      { taskSupport: "optional" },
      () => new Promise<string>((resolve) => (finish = () => resolve("ok"))),
    );
    const context = { signal: new AbortController().signal, notify: () => Promise.resolve() };
    const _meta = {
      [MetaKeys.protocolVersion]: "2026-07-28",
      [MetaKeys.clientCapabilities]: WITH_TASKS,
      [MetaKeys.clientInfo]: { name: "c", version: "1" },
    };
    const call = (name: string, id: number): Promise<Json> =>
      server.dispatch({ jsonrpc: "2.0", id, method: "tools/call", params: { name, _meta } }, context);
    expect((await call("forever", 1)).result.resultType).toBe("task");
    expect((await call("quick", 2)).result.resultType).toBe("task"); // the bound is not hit early
    const refused = (await call("forever", 3)).error;
    expect(refused).toMatchObject({ code: -32603, data: { reason: "task_store_full", maxTasks: 2 } });
    finish!();
    await flushMicrotasks();
    await time.advance(0);
    await flushMicrotasks();
    expect((await call("forever", 4)).result.resultType).toBe("task"); // the finished task was evicted
    await server.close();
  });
});
