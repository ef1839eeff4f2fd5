// RedisOAuthLock on structural clients (node-redis `sendCommand`, ioredis `call`) backed by a map that
// implements SET NX PX and the release script's compare-and-delete; acquireTimeout both ways.
import { describe, expect, it } from "vitest";
import { AuthError } from "../../../src/auth/mod.ts";
import { RedisOAuthLock } from "../../../src/redis/mod.ts";
import { FakeTimeProvider } from "../../../testing/mod.ts";

function fakeRedis() {
  const data = new Map<string, string>();
  const commands: string[][] = [];
  const run = (args: string[]): Promise<unknown> => {
    commands.push(args);
    const [command, key, value] = args;
    if (command === "SET") {
      if (data.has(key!)) return Promise.resolve(null);
      data.set(key!, value!);
      return Promise.resolve("OK");
    }
    if (command === "EVAL") {
      const [, , , k, holder] = args;
      if (data.get(k!) !== holder) return Promise.resolve(0);
      data.delete(k!);
      return Promise.resolve(1);
    }
    return Promise.reject(new Error(`unexpected ${command}`));
  };
  return { data, commands, run };
}

describe("RedisOAuthLock", () => {
  it("takes the lock with SET NX PX leaseTime and releases only its own value (node-redis shape)", async () => {
    const redis = fakeRedis();
    const lock = new RedisOAuthLock({ sendCommand: redis.run }, { leaseTime: 5000 });
    expect(await lock.withLock("refresh x", async () => [...redis.data.keys()])).toEqual([
      "onemodelcontext:oauth-lock:refresh x",
    ]);
    expect(redis.commands[0]).toEqual([
      "SET",
      "onemodelcontext:oauth-lock:refresh x",
      expect.any(String),
      "NX",
      "PX",
      "5000",
    ]);
    expect(redis.data.size).toBe(0);
  });

  it("waits while another holder has the key and rejects with lock_timeout at acquireTimeout, not before (ioredis shape)", async () => {
    const redis = fakeRedis();
    redis.data.set("onemodelcontext:oauth-lock:k", "someone-else");
    const time = new FakeTimeProvider();
    const lock = new RedisOAuthLock({ call: (command, ...args) => redis.run([command, ...args]) }, {
      acquireTimeout: 1000,
      pollInterval: 100,
      time,
    });
    let outcome: unknown = "pending";
    const waiting = lock.withLock("k", async () => "ran").then(
      (v) => (outcome = v),
      (e: unknown) => (outcome = e),
    );
    await time.advance(900);
    expect(outcome).toBe("pending");
    redis.data.delete("onemodelcontext:oauth-lock:k"); // released within the timeout: entered
    await time.advance(100);
    await waiting;
    expect(outcome).toBe("ran");

    redis.data.set("onemodelcontext:oauth-lock:k", "someone-else");
    outcome = "pending";
    const again = lock.withLock("k", async () => "ran").then(
      (v) => (outcome = v),
      (e: unknown) => (outcome = e),
    );
    await time.advance(1000);
    await again;
    expect((outcome as AuthError).code).toBe("lock_timeout");
    expect(redis.data.get("onemodelcontext:oauth-lock:k")).toBe("someone-else"); // never released by the waiter
  });

  it("refuses a client that is neither node-redis nor ioredis", () => {
    expect(() => new RedisOAuthLock({} as never)).toThrow(AuthError);
  });
});
