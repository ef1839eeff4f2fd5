import { describe, expect, it } from "vitest";
import { MemoryTaskStore } from "../../../src/tasks/memory_task_store.ts";
import { TaskStoreFullError } from "../../../src/tasks/task_errors.ts";
import type { TaskRecord, TaskStatus } from "../../../src/tasks/task_record.ts";
import { wallClockOf } from "../../../src/tasks/wall_clock.ts";
import { InvalidOptionError } from "../../../src/wire/errors.ts";
import { FakeTimeProvider } from "../../../testing/fake_time_provider.ts";

function record(
  time: FakeTimeProvider,
  taskId: string,
  status: TaskStatus = "working",
  ttlMs: number | null = 60_000,
) {
  const now = wallClockOf(time)();
  return {
    taskId,
    status,
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs,
    pollIntervalMs: 1000,
    attempt: 1,
  } satisfies TaskRecord;
}

describe("MemoryTaskStore", () => {
  it("keeps maxTasks running tasks (the bound is not hit early) and refuses one more with TaskStoreFullError", async () => {
    const time = new FakeTimeProvider();
    const store = new MemoryTaskStore({ maxTasks: 3, timeProvider: time });
    for (const id of ["a", "b", "c"]) await store.create(record(time, id));
    expect(store.size).toBe(3);
    const refused = await store.create(record(time, "d")).catch((error) => error);
    expect(refused).toBeInstanceOf(TaskStoreFullError);
    expect(refused.code).toBe(-32603);
    expect(await store.get("d")).toBeUndefined();
  });

  it("makes room by evicting the oldest finished task, never a running one", async () => {
    const time = new FakeTimeProvider();
    const store = new MemoryTaskStore({ maxTasks: 2, timeProvider: time });
    await store.create(record(time, "running"));
    await store.create(record(time, "done", "completed"));
    await store.create(record(time, "new"));
    expect(await store.get("done")).toBeUndefined();
    expect((await store.get("running"))?.status).toBe("working");
    expect((await store.get("new"))?.status).toBe("working");
  });

  it("forgets a task ttlMs after its creation, not a millisecond earlier; a null ttl never expires", async () => {
    const time = new FakeTimeProvider();
    const store = new MemoryTaskStore({ timeProvider: time });
    await store.create(record(time, "short", "working", 1000));
    await store.create(record(time, "forever", "working", null));
    await time.advance(999);
    expect(await store.get("short")).toBeDefined();
    await time.advance(1);
    expect(await store.get("short")).toBeUndefined();
    expect(await store.update("short", (r) => r)).toBeUndefined();
    await time.advance(10 * 365 * 86_400_000);
    expect(await store.get("forever")).toBeDefined();
  });

  it("updates atomically, copies records in and out, and leaves a record alone when the change returns undefined", async () => {
    const time = new FakeTimeProvider();
    const store = new MemoryTaskStore({ timeProvider: time });
    const original = record(time, "t");
    await store.create(original);
    original.status = "failed";
    const read = await store.get("t");
    expect(read?.status).toBe("working");
    read!.status = "cancelled";
    expect((await store.get("t"))?.status).toBe("working");
    expect((await store.update("t", () => undefined))?.status).toBe("working");
    expect((await store.update("t", (r) => ({ ...r, statusMessage: "half" })))?.statusMessage).toBe("half");
    await expect(store.create(record(time, "t"))).rejects.toThrow(/exists already/);
  });

  it("defaults maxTasks to 10 000 and refuses a bound below 1", () => {
    expect(new MemoryTaskStore().maxTasks).toBe(10_000);
    expect(() => new MemoryTaskStore({ maxTasks: 0 })).toThrow(InvalidOptionError);
  });
});
