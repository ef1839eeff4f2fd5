/** The client's seam: StreamClientExchange over a raw peer, and ContextClient's requests through it. */
import { describe, expect, it } from "vitest";
import { StreamClientExchange } from "../../../src/client/stream_client_exchange.ts";
import { ContextClient } from "../../../src/client/context_client.ts";
import { ContextServer } from "../../../src/server/context_server.ts";
import { JsonRpcError } from "../../../src/wire/errors.ts";
import { createDuplexPair } from "../../../testing/duplex_pair.ts";
import { FakeTimeProvider } from "../../../testing/fake_time_provider.ts";
import { Peer } from "../server/context_server_helpers.ts";

function exchangeWithPeer() {
  const time = new FakeTimeProvider();
  const [mine, theirs] = createDuplexPair();
  const unrelated: Array<[string, unknown]> = [];
  const exchange = new StreamClientExchange(mine, {
    connection: { timeProvider: time },
    onRequest: (request) => ({ answered: request.method }),
    onNotification: (method, params) => void unrelated.push([method, params]),
  });
  exchange.connection.start();
  return { exchange, peer: new Peer(theirs, time), unrelated };
}

const progress = (token: string | number, n: number) => ({
  jsonrpc: "2.0",
  method: "notifications/progress",
  params: { progressToken: token, progress: n },
});

describe("StreamClientExchange", () => {
  it("hands a pending request the progress that carries its token, and everything else to the unrelated sink", async () => {
    const { exchange, peer, unrelated } = exchangeWithPeer();
    const related: Array<[string, unknown]> = [];
    const reply = exchange.request("tools/call", { _meta: { progressToken: "mine" } }, {
      onNotification: (m, p) => void related.push([m, p]),
    });
    const sent = await peer.next();
    await peer.send(progress("mine", 1));
    await peer.send(progress("other", 1));
    await peer.send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info" } });
    await peer.send({ jsonrpc: "2.0", id: sent.id, result: { ok: true } });
    expect(await reply).toEqual({ ok: true });
    await peer.send(progress("mine", 2)); // after the reply: no longer related
    await peer.send({ jsonrpc: "2.0", method: "notifications/flush" });
    await waitFor(() => unrelated.some(([m]) => m === "notifications/flush"));
    expect(related).toEqual([["notifications/progress", { progressToken: "mine", progress: 1 }]]);
    expect(unrelated.map(([m, p]) => [m, (p as { progressToken?: string } | undefined)?.progressToken]))
      .toEqual([
        ["notifications/progress", "other"],
        ["notifications/message", undefined],
        ["notifications/progress", "mine"],
        ["notifications/flush", undefined],
      ]);
    await exchange.close();
  });

  it("without onNotification, progress with the request's token still goes to the unrelated sink", async () => {
    const { exchange, peer, unrelated } = exchangeWithPeer();
    const reply = exchange.request("tools/call", { _meta: { progressToken: 9 } });
    const sent = await peer.next();
    await peer.send(progress(9, 1));
    await peer.send({ jsonrpc: "2.0", id: sent.id, result: {} });
    await reply;
    await waitFor(() => unrelated.length > 0);
    expect(unrelated).toEqual([["notifications/progress", { progressToken: 9, progress: 1 }]]);
    await exchange.close();
  });

  it("cancels: the abort rejects with its reason and the peer is told with notifications/cancelled", async () => {
    const { exchange, peer } = exchangeWithPeer();
    const controller = new AbortController();
    const reply = exchange.request("slow", {}, { signal: controller.signal });
    const sent = await peer.next();
    controller.abort(new Error("User gave up"));
    await expect(reply).rejects.toThrow("User gave up");
    expect(await peer.next()).toMatchObject({
      method: "notifications/cancelled",
      params: { requestId: sent.id, reason: "User gave up" },
    });
    await exchange.close();
  });

  it("rejects with the server's JsonRpcError, and answers the server's requests through onRequest", async () => {
    const { exchange, peer } = exchangeWithPeer();
    const reply = exchange.request("nope", {});
    const sent = await peer.next();
    await peer.send({
      jsonrpc: "2.0",
      id: sent.id,
      error: { code: -32601, message: "Method not found: nope" },
    });
    const error = await reply.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error).toMatchObject({ code: -32601 });
    await peer.send({ jsonrpc: "2.0", id: "srv-1", method: "roots/list" });
    expect(await peer.next()).toEqual({ jsonrpc: "2.0", id: "srv-1", result: { answered: "roots/list" } });
    await exchange.close();
  });
});

describe("ContextClient through its exchange", () => {
  function pair() {
    const time = new FakeTimeProvider();
    const server = new ContextServer({
      name: "s",
      version: "1",
      capabilities: { tools: {} },
      timeProvider: time,
    });
    server.handle("tools/call", async (_p, ctx) => {
      await ctx.sendProgress(1, { total: 2 });
      return { roots: ctx.era === "legacy" ? await ctx.request("roots/list", {}) : null };
    });
    const [serverSide, clientSide] = createDuplexPair();
    void server.serve(serverSide);
    return { time, clientSide };
  }

  for (const era of ["modern", "legacy"] as const) {
    it(`${era}: a request's onNotification gets its progress, the client-wide handler none`, async () => {
      const { time, clientSide } = pair();
      const client = await ContextClient.connect(clientSide, { era, timeProvider: time, eraCache: null });
      client.handle("roots/list", () => ({ roots: [{ uri: "file:///w" }] }));
      const global: unknown[] = [];
      const mine: unknown[] = [];
      client.onNotification("notifications/progress", (p) => void global.push(p));
      const result = await client.request("tools/call", { name: "x", _meta: { progressToken: "t" } }, {
        onNotification: (_m, p) => void mine.push(p),
      });
      expect(mine).toEqual([{ progressToken: "t", progress: 1, total: 2 }]);
      expect(global).toEqual([]);
      // Legacy: the server's handler asked the client over the same stream; modern has no server-to-client requests.
      expect(result).toMatchObject({ roots: era === "legacy" ? { roots: [{ uri: "file:///w" }] } : null });
      await client.close();
    });
  }
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !condition(); i++) {
    await new Promise<void>((resolve) => queueMicrotask(resolve));
  }
  if (!condition()) throw new Error("Condition not met after 1000 microtasks");
}
