/**
 * A modern listen stream over a transport with separate requests (HTTP) reopens after it breaks off
 * or the server ends it gracefully: bounded exponential backoff with jitter on the injected clock, a
 * new id per attempt, a `resync` event once the reopened stream is acknowledged, and an end with
 * `listen_ended` past `maxAttempts`. A fake FeatureHost stands in for the HTTP client.
 */
import { describe, expect, it } from "vitest";
import {
  type ClientFeatureOptions,
  ClientFeatures,
} from "../../../../src/client/features/client_features.ts";
import type { ChangeStream } from "../../../../src/client/features/change_stream.ts";
import { ClientFeatureError } from "../../../../src/client/features/feature_errors.ts";
import type { FeatureHost, HostRequestOptions } from "../../../../src/client/features/feature_host.ts";
import type { ChangeEvent } from "../../../../src/client/features/feature_types.ts";
import {
  listenReconnectDelay,
  listenReconnectPolicy,
} from "../../../../src/client/features/listen_reconnect.ts";
import { HttpStatusError, StreamBrokenError } from "../../../../src/http/client/http_client_errors.ts";
import { ClosedError, InvalidOptionError, JsonRpcError } from "../../../../src/wire/errors.ts";
import { MetaKeys } from "../../../../src/wire/protocol_versions.ts";
import { FakeTimeProvider, flushMicrotasks } from "../../../../testing/fake_time_provider.ts";

interface Pending {
  id: unknown;
  params: Record<string, unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** A FeatureHost whose `subscriptions/listen` requests stay pending until the test settles them. */
function fakeHost(separate = true) {
  const time = new FakeTimeProvider();
  const listens: Pending[] = [];
  const reports: Error[] = [];
  const toolLists = { count: 0 };
  let close!: () => void;
  const closed = new Promise<void>((resolve) => (close = resolve));
  const host: FeatureHost = {
    era: () => "modern",
    serverCapabilities: () => ({}),
    time,
    request(method: string, params: Record<string, unknown>, options: HostRequestOptions) {
      if (method === "tools/list") {
        toolLists.count++;
        return Promise.resolve({
          tools: [{ name: `t${toolLists.count}`, inputSchema: { type: "object" } }],
          ttlMs: 60_000,
        });
      }
      expect(method).toBe("subscriptions/listen");
      return new Promise((resolve, reject) => {
        options.signal?.addEventListener("abort", () => reject(options.signal!.reason), { once: true });
        listens.push({ id: options.id, params, resolve, reject });
      });
    },
    closed: () => closed,
    report: (error) => void reports.push(error),
    separateRequests: () => separate,
  };
  return { host, time, listens, reports, close, toolLists };
}

function setup(options: ClientFeatureOptions = {}, separate = true) {
  const h = fakeHost(separate);
  const features = new ClientFeatures(h.host, options);
  const sub = (id: unknown) => ({ _meta: { [MetaKeys.subscriptionId]: id } });
  const ack = (id: unknown) =>
    features.dispatchNotification("notifications/subscriptions/acknowledged", {
      ...sub(id),
      notifications: { toolsListChanged: true },
    });
  const toolsChanged = (id: unknown) =>
    features.dispatchNotification("notifications/tools/list_changed", sub(id));
  return { ...h, features, ack, toolsChanged };
}

const broken = (id: unknown) =>
  new StreamBrokenError("subscriptions/listen", id as string, { cause: new TypeError("terminated") });

/** The events queued now, without waiting for more. */
async function drain(stream: ChangeStream): Promise<ChangeEvent[]> {
  const out: ChangeEvent[] = [];
  while (stream.pending > 0) out.push((await stream.next()).value as ChangeEvent);
  return out;
}

/** Lets the listen loop react (its request settled, its timer fired). */
const settle = async () => {
  for (let i = 0; i < 5; i++) await flushMicrotasks();
};

describe("listen over separate requests: a broken stream reopens", () => {
  it("reopens after the jittered wait (not before half of initialDelay, by initialDelay) with a new id, then reports resync once acknowledged", async () => {
    const s = setup({ listenReconnect: { initialDelay: 1_000 } });
    const stream = s.features.listen({ tools: true });
    await settle();
    expect(s.listens.length).toBe(1);
    const first = s.listens[0]!;
    s.ack(first.id);
    expect(await stream.ready).toEqual({ toolsListChanged: true });
    first.reject(broken(first.id));
    await settle();
    await s.time.advance(499);
    expect(s.listens.length).toBe(1); // the wait is at least half of initialDelay
    await s.time.advance(501);
    expect(s.listens.length).toBe(2); // and at most initialDelay
    const second = s.listens[1]!;
    expect(second.id).not.toEqual(first.id);
    expect(second.params).toEqual(first.params);
    expect(stream.pending).toBe(0); // no resync before the reopened stream is acknowledged
    s.toolsChanged(first.id); // a late event of the broken stream's id is not ours any more
    s.ack(second.id);
    s.toolsChanged(second.id);
    expect(await drain(stream)).toEqual([{ type: "resync" }, { type: "toolsListChanged" }]);
    expect(s.reports.map((e) => (e as ClientFeatureError).code)).toEqual(["listen_ended"]);
    expect(s.reports[0]!.message).toMatch(/broke off .*reopening it in \d+ ms \(attempt 1 of 8\)/);
    await stream.close();
  });

  it("a reopening drops the cached listings: after resync, listTools asks the server again instead of serving its ttlMs cache", async () => {
    const s = setup({ listenReconnect: { initialDelay: 10 } });
    const stream = s.features.listen({ tools: true });
    await settle();
    s.ack(s.listens[0]!.id);
    expect((await s.features.listTools()).map((t) => t.name)).toEqual(["t1"]);
    expect((await s.features.listTools()).map((t) => t.name)).toEqual(["t1"]); // cached for its ttlMs
    expect(s.toolLists.count).toBe(1);
    s.listens[0]!.reject(broken(s.listens[0]!.id));
    await settle();
    await s.time.advance(10);
    s.ack(s.listens[1]!.id);
    expect(await drain(stream)).toEqual([{ type: "resync" }]);
    expect((await s.features.listTools()).map((t) => t.name)).toEqual(["t2"]);
    expect(s.toolLists.count).toBe(2);
    await stream.close();
  });

  it("reopens after the server's graceful result (a replica shutting down) and after a proxy's 502/503/504", async () => {
    const s = setup({ listenReconnect: { initialDelay: 10 } });
    const stream = s.features.listen({ tools: true });
    await settle();
    s.ack(s.listens[0]!.id);
    s.listens[0]!.resolve({ resultType: "complete" });
    for (const [status, wait] of [[502, 10], [503, 20], [504, 40]] as const) {
      await settle();
      await s.time.advance(wait); // attempt n waits at most 10 × 2^(n-1)
      const next = s.listens.at(-1)!;
      next.reject(new HttpStatusError("subscriptions/listen", { status }));
    }
    await settle();
    await s.time.advance(80); // attempt 4: at most 10 × 2^3
    expect(s.listens.length).toBe(5);
    s.ack(s.listens[4]!.id);
    expect(await drain(stream)).toEqual([{ type: "resync" }]);
    expect(stream.endReason).toBeUndefined();
    await stream.close();
  });

  it("gives up after maxAttempts attempts in a row: each wait doubles, then the stream ends with listen_ended and no further attempt", async () => {
    const s = setup({ listenReconnect: { initialDelay: 100, factor: 2, maxDelay: 350, maxAttempts: 3 } });
    const stream = s.features.listen({ tools: true });
    await settle();
    s.ack(s.listens[0]!.id);
    await stream.ready;
    // Attempt n waits between half and all of min(100 × 2^(n-1), 350): [50, 100], [100, 200], [175, 350].
    for (const [low, high] of [[50, 100], [100, 200], [175, 350]] as const) {
      const before = s.listens.length;
      s.listens.at(-1)!.reject(broken(s.listens.at(-1)!.id));
      await settle();
      await s.time.advance(low - 1);
      expect(s.listens.length).toBe(before);
      await s.time.advance(high - low + 1);
      expect(s.listens.length).toBe(before + 1);
    }
    s.listens.at(-1)!.reject(broken(s.listens.at(-1)!.id));
    await settle();
    const end = await stream.next().then(() => undefined, (error: unknown) => error);
    expect(end).toBeInstanceOf(ClientFeatureError);
    expect((end as ClientFeatureError).code).toBe("listen_ended");
    expect((end as Error).message).toMatch(/gave up after 3 reopenings in a row/);
    expect((end as Error).cause).toBeInstanceOf(StreamBrokenError);
    await s.time.advance(60_000);
    expect(s.listens.length).toBe(4); // the first and three attempts, no more
    expect(s.time.pendingTimers).toBe(0);
  });

  it("a reopened stream that stays acknowledged for maxDelay starts the count again: more breaks than maxAttempts in all keep the stream alive", async () => {
    const s = setup({ listenReconnect: { initialDelay: 10, maxDelay: 1_000, maxAttempts: 2 } });
    const stream = s.features.listen({ tools: true });
    await settle();
    for (let round = 0; round < 4; round++) {
      const current = s.listens.at(-1)!;
      s.ack(current.id);
      await s.time.advance(1_000); // open for maxDelay: healthy
      current.reject(broken(current.id));
      await settle();
      await s.time.advance(10); // so each reopening is attempt 1 again (at most initialDelay)
    }
    expect(s.listens.length).toBe(5);
    s.ack(s.listens[4]!.id);
    expect(await drain(stream)).toEqual([{ type: "resync" }]); // coalesced: one resync while unread
    expect(stream.endReason).toBeUndefined();
    await stream.close();
  });

  it("a server that acknowledges and ends the stream at once, again and again, is given up on after maxAttempts", async () => {
    const s = setup({ listenReconnect: { initialDelay: 10, maxDelay: 1_000, maxAttempts: 2 } });
    const stream = s.features.listen({ tools: true });
    await settle();
    for (let round = 0; round < 3; round++) {
      const current = s.listens.at(-1)!;
      s.ack(current.id);
      await s.time.advance(999); // open just under maxDelay: no proof of health
      current.resolve({ resultType: "complete" });
      await settle();
      if (round < 2) await s.time.advance(10 * 2 ** round);
    }
    await expect(drain(stream).then(() => stream.next())).rejects.toMatchObject({
      code: "listen_ended",
      message: expect.stringMatching(/gave up after 2 reopenings in a row/),
    });
    await s.time.advance(60_000);
    expect(s.listens.length).toBe(3);
  });

  it("close() during the wait stops it: the timer is cancelled and no request follows", async () => {
    const s = setup({ listenReconnect: { initialDelay: 1_000 } });
    const stream = s.features.listen({ tools: true });
    await settle();
    s.listens[0]!.reject(broken(s.listens[0]!.id));
    await settle();
    expect(s.time.pendingTimers).toBe(1);
    await stream.close();
    expect(s.time.pendingTimers).toBe(0);
    await s.time.advance(10_000);
    expect(s.listens.length).toBe(1);
    expect(await stream.next()).toEqual({ done: true, value: undefined });
  });

  it("an AbortSignal aborts the pending attempt and ends the stream", async () => {
    const s = setup();
    const controller = new AbortController();
    const stream = s.features.listen({ tools: true, signal: controller.signal });
    await settle();
    controller.abort();
    await settle();
    expect(await stream.next()).toEqual({ done: true, value: undefined });
    await s.time.advance(60_000);
    expect(s.listens.length).toBe(1);
  });

  it("does not reopen on the server's JSON-RPC error or a 4xx: the stream ends with that error", async () => {
    for (
      const error of [
        new JsonRpcError(-32601, "Method not found"),
        new HttpStatusError("subscriptions/listen", { status: 401 }),
      ]
    ) {
      const s = setup();
      const stream = s.features.listen({ tools: true });
      await settle();
      s.listens[0]!.reject(error);
      await expect(stream.next()).rejects.toBe(error);
      await s.time.advance(60_000);
      expect(s.listens.length).toBe(1);
    }
  });

  it("does not reopen once the client closed: a ClosedError ends the stream, and so does the connection ending during the wait", async () => {
    const a = setup();
    const one = a.features.listen({ tools: true });
    await settle();
    a.listens[0]!.reject(new ClosedError("The HTTP client closed while the request was pending"));
    await expect(one.next()).rejects.toBeInstanceOf(ClosedError);

    const b = setup({ listenReconnect: { initialDelay: 100 } });
    const two = b.features.listen({ tools: true });
    await settle();
    b.listens[0]!.reject(broken(b.listens[0]!.id));
    await settle();
    expect(b.time.pendingTimers).toBe(1);
    b.close();
    await settle(); // no time passes: the wait is cut short and its timer cancelled
    await expect(two.next()).rejects.toMatchObject({ code: "listen_ended" });
    expect(b.time.pendingTimers).toBe(0);
    await b.time.advance(60_000);
    expect(b.listens.length).toBe(1);
  });

  it("notifications/cancelled from the server still ends the stream for good", async () => {
    const s = setup();
    const stream = s.features.listen({ tools: true });
    await settle();
    s.features.dispatchNotification("notifications/cancelled", {
      requestId: s.listens[0]!.id,
      reason: "Gone",
    });
    expect(await stream.next()).toEqual({ done: true, value: undefined });
    expect(stream.endReason).toBe("cancelled: Gone");
    await s.time.advance(60_000);
    expect(s.listens.length).toBe(1);
  });
});

describe("listen without reconnection", () => {
  it("listenReconnect: false keeps the old ending: a broken stream ends with its error, a graceful result with endReason result", async () => {
    const s = setup({ listenReconnect: false });
    const a = s.features.listen({ tools: true });
    const b = s.features.listen({ tools: true });
    await settle();
    const error = broken(s.listens[0]!.id);
    s.listens[0]!.reject(error);
    s.listens[1]!.resolve({});
    await expect(a.next()).rejects.toBe(error);
    expect(await b.next()).toEqual({ done: true, value: undefined });
    expect(b.endReason).toBe("result");
    await s.time.advance(60_000);
    expect(s.listens.length).toBe(2);
  });

  it("a transport without separate requests (a byte stream) does not reopen: the stream shares the connection's fate", async () => {
    const s = setup({}, false);
    const stream = s.features.listen({ tools: true });
    await settle();
    s.listens[0]!.resolve({});
    expect(await stream.next()).toEqual({ done: true, value: undefined });
    expect(stream.endReason).toBe("result");
    await s.time.advance(60_000);
    expect(s.listens.length).toBe(1);
  });
});

describe("listenReconnect option", () => {
  it("fills the defaults and rejects wrong values with invalid_option", () => {
    expect(listenReconnectPolicy(undefined)).toEqual({
      initialDelay: 500,
      maxDelay: 15_000,
      factor: 2,
      maxAttempts: 8,
    });
    expect(listenReconnectPolicy(false)).toBeUndefined();
    for (
      const wrong of [{ maxAttempts: 0 }, { maxAttempts: 1.5 }, { maxAttempts: Infinity }, { factor: 0.5 }, {
        initialDelay: -1,
      }, "fast"]
    ) {
      expect(() => listenReconnectPolicy(wrong as never), JSON.stringify(wrong)).toThrow(InvalidOptionError);
    }
  });

  it("the delay is equal jitter over the capped exponential: random 0 gives half, random 1 gives all", () => {
    const policy = listenReconnectPolicy({ initialDelay: 100, factor: 3, maxDelay: 500 })!;
    expect([1, 2, 3].map((n) => listenReconnectDelay(policy, n, () => 0))).toEqual([50, 150, 250]);
    expect([1, 2, 3].map((n) => listenReconnectDelay(policy, n, () => 1))).toEqual([100, 300, 500]);
  });
});
