import { describe, expect, it } from "vitest";
import {
  TaskEngine,
  type TaskEvents,
  type TaskOutcome,
  type TaskRun,
} from "../../../src/tasks/task_engine.ts";
import { MemoryTaskStore } from "../../../src/tasks/memory_task_store.ts";
import { localEvents } from "../../../src/tasks/local_task_events.ts";
import type { TaskRecord } from "../../../src/tasks/task_record.ts";
import { detailedTaskOf } from "../../../src/tasks/task_record.ts";
import { InvalidOptionError } from "../../../src/wire/errors.ts";
import { FakeTimeProvider, flushMicrotasks } from "../../../testing/fake_time_provider.ts";

/** Change events shared by engines (replicas) in one test: the in-engine events, given to several. */
const sharedEvents: () => TaskEvents = localEvents;

/** Work that waits until the test settles it. */
function controlled() {
  let settle!: (outcome: TaskOutcome) => void;
  let run!: TaskRun;
  const work = (r: TaskRun) => {
    run = r;
    return new Promise<TaskOutcome>((resolve) => (settle = resolve));
  };
  return { work, settle: (o: TaskOutcome) => settle(o), run: () => run };
}

const RESULT = { content: [{ type: "text", text: "ok" }] };

async function settled(time: FakeTimeProvider) {
  await flushMicrotasks();
  await time.advance(0);
}

describe("TaskEngine state transitions (FakeTimeProvider)", () => {
  it("working -> completed: the task is found as soon as start resolves, and carries the result when done", async () => {
    const time = new FakeTimeProvider();
    const engine = new TaskEngine({ timeProvider: time });
    const job = controlled();
    const created = await engine.start({}, job.work);
    expect(created.status).toBe("working");
    expect((await engine.get(created.taskId))?.status).toBe("working");
    job.settle({ status: "completed", result: RESULT });
    await settled(time);
    const done = await engine.get(created.taskId);
    expect(done?.status).toBe("completed");
    expect(detailedTaskOf(done!)).toMatchObject({ status: "completed", result: RESULT });
    expect(done?.owner).toBeUndefined();
    expect(engine.runningCount).toBe(0);
  });

  it("working -> failed: a failed outcome and a thrown error both fail the task with a JSON-RPC error", async () => {
    const time = new FakeTimeProvider();
    const engine = new TaskEngine({ timeProvider: time });
    const a = await engine.start(
      {},
      () => Promise.resolve({ status: "failed", error: { code: -32000, message: "no" } }),
    );
    const b = await engine.start({}, () => Promise.reject(new Error("boom")));
    await settled(time);
    expect(detailedTaskOf((await engine.get(a.taskId))!)).toMatchObject({
      status: "failed",
      error: { code: -32000 },
    });
    const failed = detailedTaskOf((await engine.get(b.taskId))!);
    expect(failed).toMatchObject({ status: "failed", error: { code: -32603, message: "boom" } });
    expect(failed.result).toBeUndefined();
  });

  it("working -> input_required -> (partial answer) input_required -> working -> completed", async () => {
    const time = new FakeTimeProvider();
    const engine = new TaskEngine({ timeProvider: time });
    const answers: unknown[] = [];
    const task = await engine.start({}, async (run) => {
      const both = await Promise.all([
        run.requestInput("a", { method: "elicitation/create", params: { message: "A?" } }),
        run.requestInput("b", { method: "elicitation/create", params: { message: "B?" } }),
      ]);
      answers.push(...both);
      return { status: "completed", result: RESULT };
    });
    await settled(time);
    let now = (await engine.get(task.taskId))!;
    expect(now.status).toBe("input_required");
    expect(Object.keys(detailedTaskOf(now).inputRequests!)).toEqual(["a", "b"]);
    await engine.answer(task.taskId, {
      a: { action: "accept", content: { x: 1 } },
      unknown: { action: "cancel" },
    });
    now = (await engine.get(task.taskId))!;
    expect(now.status).toBe("input_required");
    expect(Object.keys(now.inputRequests!)).toEqual(["b"]);
    await engine.answer(task.taskId, { a: { action: "decline" } }); // settled key: ignored
    await engine.answer(task.taskId, { b: { action: "decline" } });
    await settled(time);
    now = (await engine.get(task.taskId))!;
    expect(now.status).toBe("completed");
    expect(answers).toEqual([{ action: "accept", content: { x: 1 } }, { action: "decline" }]);
  });

  it("a working task answered nothing stays working: answers to keys never asked change nothing", async () => {
    const time = new FakeTimeProvider();
    const engine = new TaskEngine({ timeProvider: time });
    const job = controlled();
    const task = await engine.start({}, job.work);
    const before = await engine.get(task.taskId);
    const after = await engine.answer(task.taskId, { nope: { action: "accept" } });
    expect(after).toEqual(before);
    expect(await engine.answer("missing", {})).toBeUndefined();
  });

  it("working -> cancelled: the work's signal aborts, a waiting ask rejects, and its later outcome is dropped", async () => {
    const time = new FakeTimeProvider();
    const engine = new TaskEngine({ timeProvider: time });
    const job = controlled();
    const task = await engine.start({}, job.work);
    const asked = job.run().requestInput("k", { method: "roots/list" });
    await settled(time);
    expect((await engine.get(task.taskId))?.status).toBe("input_required");
    await engine.cancel(task.taskId);
    expect(job.run().signal.aborted).toBe(true);
    await expect(asked).rejects.toThrow(/cancelled/);
    job.settle({ status: "completed", result: RESULT });
    await settled(time);
    const final = detailedTaskOf((await engine.get(task.taskId))!);
    expect(final.status).toBe("cancelled");
    expect(final.result).toBeUndefined();
    expect(final.inputRequests).toBeUndefined();
  });

  it("a terminal task stays as it is: cancel after completion and answers after cancellation change nothing", async () => {
    const time = new FakeTimeProvider();
    const engine = new TaskEngine({ timeProvider: time });
    const task = await engine.start({}, () => Promise.resolve({ status: "completed", result: RESULT }));
    await settled(time);
    await engine.cancel(task.taskId);
    expect((await engine.get(task.taskId))?.status).toBe("completed");
    expect(await engine.cancel("missing")).toBeUndefined();
  });

  it("progress sets statusMessage, and every change reaches onChange listeners", async () => {
    const time = new FakeTimeProvider();
    const engine = new TaskEngine({ timeProvider: time });
    const seen: string[] = [];
    engine.onChange((record) => seen.push(`${record.status}:${record.statusMessage ?? ""}`));
    const job = controlled();
    const task = await engine.start({}, job.work);
    await job.run().setStatusMessage("half way");
    await settled(time);
    expect((await engine.get(task.taskId))?.statusMessage).toBe("half way");
    job.settle({ status: "completed", result: RESULT });
    await settled(time);
    expect(seen).toEqual(["working:half way", "completed:half way"]);
  });

  it("renews the lease while the work runs: another replica never sees a live task as lost", async () => {
    const time = new FakeTimeProvider();
    const store = new MemoryTaskStore({ timeProvider: time });
    const events = sharedEvents();
    const a = new TaskEngine({ store, events, timeProvider: time, leaseMs: 3000, replicaId: "a" });
    const b = new TaskEngine({ store, events, timeProvider: time, leaseMs: 3000, replicaId: "b" });
    const job = controlled();
    const task = await a.start({}, job.work);
    for (let i = 0; i < 10; i++) {
      await time.advance(1000);
      await settled(time);
      expect((await b.get(task.taskId))?.status).toBe("working");
    }
    expect((await b.get(task.taskId))?.owner).toBe("a");
  });

  it("working -> failed when the replica dies: found failed (worker lost) by another replica once the lease ran out, not before", async () => {
    const time = new FakeTimeProvider();
    const store = new MemoryTaskStore({ timeProvider: time });
    const events = sharedEvents();
    const a = new TaskEngine({ store, events, timeProvider: time, leaseMs: 3000, replicaId: "a" });
    const b = new TaskEngine({ store, events, timeProvider: time, leaseMs: 3000, replicaId: "b" });
    const task = await a.start({}, controlled().work);
    a.close(); // its renewals stop, as when the process is killed
    await time.advance(3000);
    expect((await b.get(task.taskId))?.status).toBe("working");
    await time.advance(1);
    const lost = detailedTaskOf((await b.get(task.taskId))!);
    expect(lost).toMatchObject({
      status: "failed",
      error: { code: -32603, data: { reason: "worker_lost", replica: "a" } },
    });
    expect(lost.error?.message).toMatch(/worker lost/);
  });

  it("a safe-to-repeat task runs again on a surviving replica, up to maxAttempts, then fails as lost", async () => {
    const time = new FakeTimeProvider();
    const store = new MemoryTaskStore({ timeProvider: time });
    const events = sharedEvents();
    const engines = ["a", "b", "c"].map((replicaId) =>
      new TaskEngine({ store, events, timeProvider: time, leaseMs: 1000, replicaId, maxAttempts: 2 })
    );
    const runs: string[] = [];
    for (const engine of engines) {
      engine.setResumer((record: TaskRecord) => (run) => {
        runs.push(`${engine.replicaId}:${run.attempt}:${record.rerun?.tool}`);
        return new Promise(() => {});
      });
    }
    const rerun = { tool: "t", params: {}, clientCapabilities: {}, maxAttempts: 2 };
    const task = await engines[0].start({ rerun }, () => new Promise(() => {}));
    engines[0].close();
    await time.advance(1001);
    const resumed = await engines[1].get(task.taskId);
    expect(resumed).toMatchObject({ status: "working", owner: "b", attempt: 2 });
    expect(runs).toEqual(["b:2:t"]);
    engines[1].close();
    await time.advance(1001);
    expect((await engines[2].get(task.taskId))?.status).toBe("failed");
    expect(runs).toEqual(["b:2:t"]);
  });

  it("a task expires ttlMs after creation", async () => {
    const time = new FakeTimeProvider();
    const engine = new TaskEngine({ timeProvider: time, ttlMs: 5000 });
    const task = await engine.start({}, () => Promise.resolve({ status: "completed", result: RESULT }));
    await time.advance(4999);
    expect(await engine.get(task.taskId)).toBeDefined();
    await time.advance(1);
    expect(await engine.get(task.taskId)).toBeUndefined();
  });

  it("refuses bad options and has documented defaults", () => {
    const engine = new TaskEngine();
    expect([engine.leaseMs, engine.pollIntervalMs, engine.ttlMs, engine.maxAttempts]).toEqual([
      30_000,
      1000,
      3_600_000,
      3,
    ]);
    expect(() => new TaskEngine({ leaseMs: 0 })).toThrow(InvalidOptionError);
    expect(() => new TaskEngine({ ttlMs: -1 })).toThrow(InvalidOptionError);
    expect(new TaskEngine({ ttlMs: null }).ttlMs).toBeNull();
    engine.close();
  });
});
