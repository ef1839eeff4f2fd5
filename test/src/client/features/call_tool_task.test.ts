/** callTool following a task (the tasks extension) against our own ContextServer, on one fake clock. */
import { describe, expect, it } from "vitest";
import { ContextClient } from "../../../../src/client/context_client.ts";
import type { ClientTask } from "../../../../src/client/features/task_follower.ts";
import { ContextServer } from "../../../../src/server/context_server.ts";
import { TASKS_EXTENSION } from "../../../../src/tasks/task_record.ts";
import { CancelledError, JsonRpcError } from "../../../../src/wire/errors.ts";
import { createDuplexPair } from "../../../../testing/duplex_pair.ts";
import { FakeTimeProvider, flushMicrotasks } from "../../../../testing/fake_time_provider.ts";

async function setup() {
  const time = new FakeTimeProvider();
  const server = new ContextServer({
    name: "tasks",
    version: "1.0.0",
    timeProvider: time,
    features: { tasks: { pollIntervalMs: 500 } },
  });
  const [serverSide, clientSide] = createDuplexPair();
  void server.serve(serverSide);
  const client = await ContextClient.connect(clientSide, {
    era: "modern",
    timeProvider: time,
    eraCache: null,
    capabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  });
  /** Moves the clock one poll interval at a time until `promise` settles. */
  const drive = async <T>(promise: Promise<T>, steps = 50): Promise<T> => {
    let done = false;
    promise.then(() => (done = true), () => (done = true));
    for (let i = 0; i < steps && !done; i++) {
      await flushMicrotasks();
      await time.advance(500);
      await flushMicrotasks();
    }
    return promise;
  };
  /** Moves the clock `steps` poll intervals. */
  const advance = async (steps: number): Promise<void> => {
    for (let i = 0; i < steps; i++) {
      await flushMicrotasks();
      await time.advance(500);
      await flushMicrotasks();
    }
  };
  return { server, client, time, drive, advance };
}

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open: () => open(), opened };
}

describe("callTool with the tasks extension", () => {
  it("follows the task at the server's pollIntervalMs and resolves with its result; progress arrives as statusMessage", async () => {
    const { server, client, drive, advance } = await setup();
    const go = gate();
    server.tool("job", { taskSupport: "optional" }, async (_args, ctx) => {
      await ctx.sendProgress(1, { total: 2, message: "half way" });
      await go.opened;
      return "job done";
    });
    const seen: ClientTask[] = [];
    const call = client.callTool("job", {}, { onTaskStatus: (task) => seen.push(task) });
    await advance(3);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.at(-1)).toMatchObject({ status: "working", statusMessage: "half way" });
    go.open();
    const result = await drive(call);
    expect(result.content).toEqual([{ type: "text", text: "job done" }]);
    expect(seen.at(-1)?.status).toBe("completed");
    await client.close();
  });

  it("answers the task's input requests with the client's onElicit handler through tasks/update", async () => {
    const { server, client, drive } = await setup();
    server.tool("ask", { taskSupport: "optional" }, async (_args, ctx) => {
      const answer = await ctx.elicit({
        message: "Name?",
        requestedSchema: { type: "object", properties: {} },
      });
      return `hello ${(answer.content as Record<string, unknown>)?.name}`;
    });
    client.onElicit(() => ({ action: "accept", content: { name: "Ada" } }));
    const result = await drive(client.callTool("ask"));
    expect(result.content).toEqual([{ type: "text", text: "hello Ada" }]);
    await client.close();
  });

  it("rejects with the task's JSON-RPC error when it fails, and a CancelledError when the server cancelled it", async () => {
    const { server, client, drive, advance } = await setup();
    server.tool("broken", { taskSupport: "optional" }, () => {
      throw new JsonRpcError(-32050, "broken tool");
    });
    const error = await drive(client.callTool("broken")).catch((e) => e);
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error.code).toBe(-32050);
    server.tool("slow", { taskSupport: "optional" }, () => new Promise(() => {}));
    const call = client.callTool("slow");
    let taskId: string | undefined;
    const watched = client.callTool("slow", {}, { onTaskStatus: (t) => (taskId ??= t.taskId) });
    await advance(2);
    expect(taskId).toBeDefined();
    await client.cancelTask(taskId!);
    expect(await drive(watched).catch((e) => e)).toBeInstanceOf(CancelledError);
    void call.catch(() => {});
    await client.close();
  });

  it("aborting the call cancels the task on the server; getTask and resumeTask work by id", async () => {
    const { server, client, drive, advance } = await setup();
    let handlerSignal: AbortSignal | undefined;
    const go = gate();
    server.tool("slow", { taskSupport: "optional" }, async (_args, ctx) => {
      handlerSignal = ctx.signal;
      await go.opened;
      return "resumed result";
    });
    const abort = new AbortController();
    let taskId: string | undefined;
    const call = client.callTool("slow", {}, {
      signal: abort.signal,
      onTaskStatus: (t) => (taskId ??= t.taskId),
    });
    call.catch(() => {});
    await advance(2);
    expect(taskId).toBeDefined();
    abort.abort(new Error("user gave up"));
    await expect(call).rejects.toThrow("user gave up");
    await advance(2);
    expect(handlerSignal?.aborted).toBe(true);
    expect((await client.getTask(taskId!)).status).toBe("cancelled");

    // A second task, followed by id as a restarted client would.
    let second: string | undefined;
    const first = client.callTool("slow", {}, { onTaskStatus: (t) => (second ??= t.taskId) });
    await advance(2);
    const resumed = client.resumeTask(second!);
    go.open();
    expect(await drive(resumed)).toMatchObject({ content: [{ text: "resumed result" }] });
    await first;
    await client.close();
  });
});
