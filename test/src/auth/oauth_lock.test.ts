// One refresh at a time: two clients sharing a store and a rotating refresh token, with and without
// the store's lock (deterministic, in one process), and the in-memory lock itself.
import { describe, expect, it } from "vitest";
import {
  InMemoryOAuthLock,
  InMemoryOAuthStore,
  type OAuthLock,
  type OAuthStore,
  withOAuth,
} from "../../../src/auth/mod.ts";
import { RotatingRefreshServer } from "./rotating_refresh_fixture.ts";

const ORIGIN = "http://127.0.0.1:9200";

/** A lock that counts who waits on it. */
class CountingLock implements OAuthLock {
  calls = 0;
  inner = new InMemoryOAuthLock();
  withLock<T>(key: string, critical: () => Promise<T>): Promise<T> {
    this.calls++;
    return this.inner.withLock(key, critical);
  }
}

async function twoClients(lock: OAuthLock | undefined) {
  const server = new RotatingRefreshServer();
  server.origin = ORIGIN;
  let open!: () => void;
  server.gate = new Promise((resolve) => (open = resolve));
  const base = new InMemoryOAuthStore();
  // The store without its own lock, with the lock under test (or none).
  const store: OAuthStore = {
    getTokens: (s) => base.getTokens(s),
    saveTokens: (s, t) => base.saveTokens(s, t),
    deleteTokens: (s) => base.deleteTokens(s),
    getClient: (i) => base.getClient(i),
    saveClient: (i, c) => base.saveClient(i, c),
    savePending: (s, p) => base.savePending(s, p),
    takePending: (s) => base.takePending(s),
    ...(lock === undefined ? {} : { lock }),
  };
  store.saveTokens(server.mcpUrl, { ...server.seed(), resource: server.mcpUrl });
  const fetch = (input: string | URL | Request, init?: RequestInit) =>
    server.handler(new Request(input, init));
  let relogins = 0;
  const client = () =>
    withOAuth(fetch, {
      store,
      client: { clientId: "cli" },
      redirectUri: "http://127.0.0.1:1/callback",
      redirectTo: () => {
        relogins++;
        throw new Error("forced re-login");
      },
    });
  const [a, b] = [client(), client()];
  const send = (f: typeof a) =>
    f(server.mcpUrl, { method: "POST", body: "{}" }).then((r) => r.status, () => "error");
  return { server, open, a, b, send, relogins: () => relogins };
}

describe("one refresh at a time (OAuthStore.lock)", () => {
  it("with the lock, the second client waits and uses the tokens the first one saved: one refresh, no re-login", async () => {
    const lock = new CountingLock();
    const t = await twoClients(lock);
    const results = Promise.all([t.send(t.a), t.send(t.b)]);
    await t.server.until(() => t.server.refreshRequests === 1);
    while (lock.calls < 2) await new Promise((resolve) => setImmediate(resolve)); // both at the lock
    t.open();
    expect(await results).toEqual([200, 200]);
    expect(t.server.refreshRequests).toBe(1);
    expect(t.server.reuseDetected).toBe(0);
    expect(t.relogins()).toBe(0);
  });

  it("without a lock, both spend the refresh token: the server revokes the family and a re-login follows", async () => {
    const t = await twoClients(undefined);
    const results = Promise.all([t.send(t.a), t.send(t.b)]);
    await t.server.until(() => t.server.refreshRequests === 2);
    t.open();
    expect(await results).toContain("error");
    expect(t.server.reuseDetected).toBe(1);
    expect(t.relogins()).toBeGreaterThan(0);
  });

  it("InMemoryOAuthLock runs holders of one key one at a time, in order, and other keys meanwhile", async () => {
    const lock = new InMemoryOAuthLock();
    const events: string[] = [];
    let release!: () => void;
    const first = lock.withLock("k", async () => {
      events.push("first in");
      await new Promise<void>((resolve) => (release = resolve));
      events.push("first out");
    });
    const second = lock.withLock("k", async () => void events.push("second"));
    await lock.withLock("other", async () => void events.push("other"));
    expect(events).toEqual(["first in", "other"]);
    release();
    await Promise.all([first, second]);
    expect(events).toEqual(["first in", "other", "first out", "second"]);
    // A failing holder releases the lock too.
    await expect(lock.withLock("k", () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await lock.withLock("k", async () => "after")).toBe("after");
  });
});
