// FileOAuthLock: mutual exclusion through a lock file, its acquireTimeout both ways on the fake clock,
// and the takeover of a lock file whose holder process is gone.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileOAuthLock } from "../../../adapters/node/_oauth_file_lock.ts";
import { AuthError } from "../../../src/auth/mod.ts";
import { FakeTimeProvider, flushMicrotasks } from "../../../testing/mod.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "file-lock-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Holds `key` until the returned release is called. */
async function hold(lock: FileOAuthLock, key: string): Promise<() => Promise<void>> {
  let entered!: () => void;
  let release!: () => void;
  const inside = new Promise<void>((resolve) => (entered = resolve));
  const done = lock.withLock(key, () => {
    entered();
    return new Promise<void>((resolve) => (release = resolve));
  });
  await inside;
  return async () => {
    release();
    await done;
  };
}

/** Waits until the waiter has armed its next poll timer (the file system answered). */
async function polled(time: FakeTimeProvider): Promise<void> {
  while (time.nextDueIn === undefined) await flushMicrotasks();
}

describe("FileOAuthLock", () => {
  it("rejects with lock_timeout once acquireTimeout passed while another holder keeps the lock, not before", async () => {
    const time = new FakeTimeProvider();
    const holder = new FileOAuthLock(dir);
    const waiter = new FileOAuthLock(dir, { acquireTimeout: 1000, pollInterval: 100, time });
    const release = await hold(holder, "refresh https://a/mcp");
    let outcome: unknown = "pending";
    const waiting = waiter.withLock("refresh https://a/mcp", async () => "ran").then(
      (value) => (outcome = value),
      (error: unknown) => (outcome = error),
    );
    for (let i = 0; i < 9; i++) {
      await polled(time);
      await time.advance(100);
    }
    expect(outcome).toBe("pending"); // 900 ms: still waiting
    await polled(time);
    await time.advance(100);
    await waiting;
    expect(outcome).toBeInstanceOf(AuthError);
    expect((outcome as AuthError).code).toBe("lock_timeout");
    await release();
  });

  it("enters once the holder releases within acquireTimeout, and removes its lock file after", async () => {
    const time = new FakeTimeProvider();
    const holder = new FileOAuthLock(dir);
    const waiter = new FileOAuthLock(dir, { acquireTimeout: 1000, pollInterval: 100, time });
    const release = await hold(holder, "k");
    const order: string[] = [];
    const waiting = waiter.withLock("k", async () => void order.push("waiter"));
    await polled(time);
    order.push("released");
    await release();
    await time.advance(100);
    await waiting;
    expect(order).toEqual(["released", "waiter"]);
    expect(existsSync(waiter.pathOf("k"))).toBe(false);
  });

  it("takes over a lock file whose holder process has exited", async () => {
    const gone = spawnSync(process.execPath, ["-e", "process.pid"]).pid!;
    const lock = new FileOAuthLock(dir, { acquireTimeout: 0 });
    writeFileSync(lock.pathOf("k"), `${gone} crashed-holder`);
    expect(await lock.withLock("k", async () => "entered")).toBe("entered");
  });

  it("refuses a negative acquireTimeout", () => {
    expect(() => new FileOAuthLock(dir, { acquireTimeout: -1 })).toThrow();
  });
});
