// deno-lint-ignore-file no-explicit-any -- tests reach into loosely typed peer objects
/**
 * JsonRpcConnection: requests, notifications and responses both ways, ids, the error replies the
 * connection writes itself, cancellation both ways, and option validation.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClosedError, InvalidOptionError, JsonRpcError, TransportError } from "../../../src/wire/errors.ts";
import { JsonRpcConnection, type JsonRpcConnectionOptions } from "../../../src/rpc/json_rpc_connection.ts";
import { NewlineChannel } from "../../../src/stream/newline_channel.ts";
import { createDuplexPair, type Duplex } from "../../../testing/duplex_pair.ts";
import { RecordingWritable } from "../../../testing/recording_writable.ts";
import { FakeTimeProvider, flushMicrotasks } from "../../../testing/fake_time_provider.ts";

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
beforeAll(() => void process.on("unhandledRejection", onUnhandled));
afterAll(async () => {
  await flushMicrotasks();
  await flushMicrotasks();
  process.off("unhandledRejection", onUnhandled);
  expect(unhandled).toEqual([]);
});

const encoder = new TextEncoder();

/** The test's side of a connection: writes raw lines, reads and parses what the connection writes. */
function rawPeer(duplex: Duplex) {
  const writer = duplex.writable.getWriter();
  const lines: string[] = [];
  let ended = false;
  void (async () => {
    const reader = duplex.readable.pipeThrough(
      new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>,
    ).getReader();
    let rest = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += value;
      let nl: number;
      while ((nl = rest.indexOf("\n")) !== -1) {
        lines.push(rest.slice(0, nl));
        rest = rest.slice(nl + 1);
      }
    }
    ended = true;
  })().catch(() => (ended = true));
  return {
    lines,
    get messages(): any[] {
      return lines.map((l) => JSON.parse(l));
    },
    get ended() {
      return ended;
    },
    write: (text: string | Uint8Array) =>
      writer.write(typeof text === "string" ? encoder.encode(text) : text),
    send: (message: unknown) => writer.write(encoder.encode(JSON.stringify(message) + "\n")),
    end: () => writer.close(),
    async waitFor(n: number): Promise<any[]> {
      for (let i = 0; i < 2_000 && lines.length < n; i++) await flushMicrotasks();
      expect(lines.length).toBeGreaterThanOrEqual(n);
      return lines.slice(0, n).map((l) => JSON.parse(l));
    },
  };
}

function serverAndPeer(options: JsonRpcConnectionOptions = {}) {
  const [a, b] = createDuplexPair();
  const reports: Error[] = [];
  const server = new JsonRpcConnection(b, { onReport: (e) => reports.push(e), ...options });
  return { server, peer: rawPeer(a), reports };
}

async function settle(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await flushMicrotasks();
}

describe("JsonRpcConnection messages both ways", () => {
  it("serves requests, notifications and responses in both directions over one duplex pair", async () => {
    const [a, b] = createDuplexPair();
    const seenByServer: unknown[] = [];
    const seenByClient: unknown[] = [];
    const client = new JsonRpcConnection(a)
      .handle("client/echo", (p) => ({ echoed: p }))
      .onNotification("note", (p) => void seenByClient.push(p))
      .start();
    const server: JsonRpcConnection = new JsonRpcConnection(b)
      .handle("server/ask", async (p, ctx) => {
        await ctx.notify("note", { progress: 1 });
        const back: unknown = await server.request("client/echo", { from: "server", inner: p });
        return { back };
      })
      .onNotification("note", (p) => void seenByServer.push(p))
      .start();
    await client.notify("note", { hello: "server" });
    const result = await client.request("server/ask", { q: 1 });
    expect(result).toEqual({ back: { echoed: { from: "server", inner: { q: 1 } } } });
    expect(seenByServer).toEqual([{ hello: "server" }]);
    expect(seenByClient).toEqual([{ progress: 1 }]);
    await client.close();
    expect((await server.closed).reason).toBe("eof");
    expect((await client.closed).reason).toBe("closed");
  });

  it('keeps string and number ids apart: 1 and "1" are different requests', async () => {
    const { server, peer } = serverAndPeer();
    const release = deferred();
    server.handle("wait", async (p) => {
      await release.promise;
      return p;
    }).start();
    await peer.send({ jsonrpc: "2.0", id: 1, method: "wait", params: "number" });
    await peer.send({ jsonrpc: "2.0", id: "1", method: "wait", params: "string" });
    await settle();
    expect(server.activeHandlers).toBe(2);
    release.resolve();
    const replies = await peer.waitFor(2);
    expect(replies).toEqual(expect.arrayContaining([
      { jsonrpc: "2.0", id: 1, result: "number" },
      { jsonrpc: "2.0", id: "1", result: "string" },
    ]));
    await server.close();
  });

  it('settles outgoing calls by id type: a reply with id "1" does not settle the call with id 1', async () => {
    const { server, peer, reports } = serverAndPeer();
    server.start();
    const call = server.request("m", undefined, { id: 1 });
    const [req] = await peer.waitFor(1);
    expect(req).toEqual({ jsonrpc: "2.0", id: 1, method: "m" });
    await peer.send({ jsonrpc: "2.0", id: "1", result: "wrong" });
    await settle();
    expect(reports.map((r) => r.message).join()).toMatch(/unknown request id "1"/);
    expect(server.pendingRequests).toBe(1);
    await peer.send({ jsonrpc: "2.0", id: 1, result: "right" });
    expect(await call).toBe("right");
    await server.close();
  });

  it("gives every outgoing request a unique id", async () => {
    const { server, peer } = serverAndPeer();
    server.start();
    const calls = Array.from({ length: 50 }, (_, i) => server.request("m", { i }));
    const requests = await peer.waitFor(50);
    expect(new Set(requests.map((r) => JSON.stringify(r.id))).size).toBe(50);
    for (const r of requests) await peer.send({ jsonrpc: "2.0", id: r.id, result: r.params.i });
    expect(await Promise.all(calls)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    await server.close();
  });

  it("reports and drops a reply to an unknown id", async () => {
    const { server, peer, reports } = serverAndPeer();
    server.start();
    await peer.send({ jsonrpc: "2.0", id: 99, result: {} });
    await peer.send({ jsonrpc: "2.0", id: "x", error: { code: -1, message: "no" } });
    await settle();
    expect(reports.map((r) => r.message)).toEqual([
      expect.stringMatching(/unknown request id 99/),
      expect.stringMatching(/unknown request id "x"/),
    ]);
    expect(peer.lines).toEqual([]); // nothing is answered to a response
    await server.close();
  });

  it("rejects a request that reuses the id of one still in flight with -32600, and serves the original", async () => {
    const { server, peer, reports } = serverAndPeer();
    const release = deferred();
    server.handle("wait", async () => {
      await release.promise;
      return "first";
    }).start();
    await peer.send({ jsonrpc: "2.0", id: 7, method: "wait" });
    await peer.send({ jsonrpc: "2.0", id: 7, method: "wait" });
    const [dup] = await peer.waitFor(1);
    expect(dup).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -32600 } });
    expect(reports.length).toBe(1);
    release.resolve();
    const [, first] = await peer.waitFor(2);
    expect(first).toEqual({ jsonrpc: "2.0", id: 7, result: "first" });
    // Once the first finished the id may be used again.
    await peer.send({ jsonrpc: "2.0", id: 7, method: "wait" });
    const [, , again] = await peer.waitFor(3);
    expect(again).toEqual({ jsonrpc: "2.0", id: 7, result: "first" });
    await server.close();
  });

  it("answers a request with id null with -32600 and no id, and does not run it", async () => {
    const { server, peer } = serverAndPeer();
    let ran = false;
    server.handle("m", () => (ran = true)).start();
    await peer.send({ jsonrpc: "2.0", id: null, method: "m" });
    const [reply] = await peer.waitFor(1);
    expect(reply.error.code).toBe(-32600);
    expect("id" in reply).toBe(false);
    expect(ran).toBe(false);
    await server.close();
  });

  it("omits id on error replies whose id cannot be read, and keeps it when it can", async () => {
    const { server, peer } = serverAndPeer();
    server.start();
    await peer.send({ jsonrpc: "2.0", id: { not: "an id" }, method: "m" });
    await peer.send({ jsonrpc: "1.0", id: 5, method: "m" });
    await peer.send({ jsonrpc: "2.0", id: 6, method: 42 });
    await peer.send({ jsonrpc: "2.0", id: true, method: "m" });
    await peer.send(42);
    const replies = await peer.waitFor(5);
    expect(replies.map((r) => r.error.code)).toEqual([-32600, -32600, -32600, -32600, -32600]);
    expect(replies.map((r) => ("id" in r ? r.id : "none"))).toEqual(["none", 5, 6, "none", "none"]);
    await server.close();
  });

  it("accepts incoming error responses with id null or without id: reported, nothing answered, nothing crashes", async () => {
    const { server, peer, reports } = serverAndPeer();
    server.handle("ping", () => ({})).start();
    const call = server.request("m");
    await peer.waitFor(1);
    await peer.send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
    await peer.send({ jsonrpc: "2.0", error: { code: -32600, message: "Invalid request" } });
    await settle();
    expect(reports.length).toBe(2);
    expect(reports.every((r) => r instanceof TransportError && r.code === "protocol")).toBe(true);
    expect(server.pendingRequests).toBe(1); // an error without id settles nothing
    await peer.send({ jsonrpc: "2.0", id: 1, method: "ping" });
    const lines = await peer.waitFor(2);
    expect(lines[1]).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    await peer.send({ jsonrpc: "2.0", id: lines[0].id, error: { code: -32000, message: "nope", data: [1] } });
    await expect(call).rejects.toSatisfy((e: unknown) =>
      e instanceof JsonRpcError && e.code === -32000 && (e as JsonRpcError).message === "nope"
    );
    await server.close();
  });

  it("answers a batch with one -32600 without id and runs none of it", async () => {
    const { server, peer } = serverAndPeer();
    let ran = 0;
    server.handle("m", () => ran++).start();
    await peer.send([{ jsonrpc: "2.0", id: 1, method: "m" }, { jsonrpc: "2.0", id: 2, method: "m" }]);
    await peer.send({ jsonrpc: "2.0", id: 3, method: "m" });
    const [batch, next] = await peer.waitFor(2);
    expect(batch).toEqual({
      jsonrpc: "2.0",
      error: { code: -32600, message: expect.stringMatching(/batch/i) },
    });
    expect(next).toEqual({ jsonrpc: "2.0", id: 3, result: 0 });
    expect(ran).toBe(1);
    await settle();
    expect(peer.lines.length).toBe(2);
    await server.close();
  });

  it("answers malformed JSON with -32700 without id and keeps serving", async () => {
    const { server, peer, reports } = serverAndPeer();
    server.handle("m", () => "ok").start();
    await peer.write('{"jsonrpc":"2.0","id":1,"method":\n');
    await peer.write("not json at all\n");
    await peer.send({ jsonrpc: "2.0", id: 2, method: "m" });
    const replies = await peer.waitFor(3);
    expect(replies[0]).toEqual({ jsonrpc: "2.0", error: { code: -32700, message: expect.any(String) } });
    expect(replies[1]).toEqual({ jsonrpc: "2.0", error: { code: -32700, message: expect.any(String) } });
    expect(replies[2]).toEqual({ jsonrpc: "2.0", id: 2, result: "ok" });
    expect(reports.map((r) => (r as TransportError).code)).toEqual(["parse", "parse"]);
    await server.close();
  });

  it("answers a line of invalid UTF-8 with -32700 without id and keeps serving", async () => {
    const { server, peer, reports } = serverAndPeer();
    server.handle("m", () => "ok").start();
    const bad = new Uint8Array([
      ...encoder.encode('{"jsonrpc":"2.0","id":1,"method":"m","params":"'),
      0xff,
      0xfe,
      ...encoder.encode('"}\n'),
    ]);
    await peer.write(bad);
    await peer.send({ jsonrpc: "2.0", id: 2, method: "m" });
    const replies = await peer.waitFor(2);
    expect(replies[0]).toEqual({ jsonrpc: "2.0", error: { code: -32700, message: expect.any(String) } });
    expect(replies[1]).toEqual({ jsonrpc: "2.0", id: 2, result: "ok" });
    expect(reports.map((r) => (r as TransportError).code)).toEqual(["invalid_utf8"]);
    await server.close();
  });

  it("answers an oversize request with an error reply carrying the id from its head, and serves the next line", async () => {
    const { server, peer, reports } = serverAndPeer({ channel: { maxMessageBytes: 1024 } });
    server.handle("m", (p) => p).start();
    await peer.send({ jsonrpc: "2.0", id: 1, method: "m", params: "x".repeat(5000) });
    await peer.send({ jsonrpc: "2.0", id: 2, method: "m", params: "y".repeat(900) });
    const replies = await peer.waitFor(2);
    expect(replies[0].error.code).toBe(-32600);
    expect(replies[0].error.message).toMatch(/maxMessageBytes/);
    expect(replies[0].id).toBe(1);
    expect(replies[1]).toEqual({ jsonrpc: "2.0", id: 2, result: "y".repeat(900) });
    expect(reports.map((r) => (r as TransportError).code)).toEqual(["message_too_large"]);
    await server.close();
  });

  it("answers unknown methods with -32601 and handler failures with their error", async () => {
    const { server, peer, reports } = serverAndPeer();
    server
      .handle("boom", () => {
        throw new Error("Kaboom");
      })
      .handle("rpc", () => {
        throw new JsonRpcError(-32602, "Bad params", { field: "x" });
      })
      .handle("void", () => undefined)
      .start();
    await peer.send({ jsonrpc: "2.0", id: 1, method: "nope" });
    await peer.send({ jsonrpc: "2.0", id: 2, method: "boom" });
    await peer.send({ jsonrpc: "2.0", id: 3, method: "rpc" });
    await peer.send({ jsonrpc: "2.0", id: 4, method: "void" });
    const replies = await peer.waitFor(4);
    const byId = new Map(replies.map((r) => [r.id, r]));
    expect(byId.get(1).error.code).toBe(-32601);
    expect(byId.get(2).error).toEqual({ code: -32603, message: "Kaboom" });
    expect(byId.get(3).error).toEqual({ code: -32602, message: "Bad params", data: { field: "x" } });
    expect(byId.get(4).result).toEqual({});
    expect(reports.map((r) => r.message)).toEqual(["Kaboom"]);
    await server.close();
  });

  it("answers -32603 when a handler's result cannot be serialized, instead of leaving the caller waiting", async () => {
    const { server, peer, reports } = serverAndPeer();
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    server.handle("bigint", () => ({ n: 1n })).handle("cycle", () => cycle).handle("ok", () => "fine")
      .start();
    await peer.send({ jsonrpc: "2.0", id: 1, method: "bigint" });
    await peer.send({ jsonrpc: "2.0", id: 2, method: "cycle" });
    await peer.send({ jsonrpc: "2.0", id: 3, method: "ok" });
    const replies = await peer.waitFor(3);
    const byId = new Map(replies.map((r) => [r.id, r]));
    expect(byId.get(1).error.code).toBe(-32603);
    expect(byId.get(2).error.code).toBe(-32603);
    expect(byId.get(3).result).toBe("fine");
    expect(reports.length).toBe(2);
    await server.close();
  });

  it("rejects a request whose params cannot be serialized, and keeps working", async () => {
    const { server, peer } = serverAndPeer();
    server.start();
    await expect(server.request("m", { n: 1n })).rejects.toBeInstanceOf(TypeError);
    expect(server.pendingRequests).toBe(0);
    const call = server.request("m2");
    const [req] = await peer.waitFor(1);
    expect(req.method).toBe("m2");
    await peer.send({ jsonrpc: "2.0", id: req.id, result: 5 });
    expect(await call).toBe(5);
    await server.close();
  });

  it("passes a notification to its handler and never answers it, also when none is registered", async () => {
    const { server, peer } = serverAndPeer();
    const seen: unknown[] = [];
    server.onNotification("n", (p) => void seen.push(p)).handle("m", () => "done").start();
    await peer.send({ jsonrpc: "2.0", method: "n", params: { a: 1 } });
    await peer.send({ jsonrpc: "2.0", method: "unregistered" });
    await peer.send({ jsonrpc: "2.0", id: 1, method: "m" });
    const replies = await peer.waitFor(1);
    expect(replies).toEqual([{ jsonrpc: "2.0", id: 1, result: "done" }]);
    expect(seen).toEqual([{ a: 1 }]);
    await server.close();
  });
});

describe("JsonRpcConnection over a NewlineChannel it is given", () => {
  it("serves requests both ways and half-closes at EOF", async () => {
    const [a, b] = createDuplexPair();
    const channel = new NewlineChannel(b);
    const server = new JsonRpcConnection(channel).handle("m", (p) => ({ got: p })).start();
    expect(server.channel).toBe(channel);
    const client = new JsonRpcConnection(a).start();
    expect(await client.request("m", 1)).toEqual({ got: 1 });
    await client.close();
    // The client's close also released its input, so the server's (empty) output may find the pipe gone.
    expect((await server.closed).reason).toBe("eof");
  });

  it("a write failure is seen at the next send: fault, pending calls rejected", async () => {
    const output = new RecordingWritable({ autoComplete: false });
    const input = new TransformStream<Uint8Array, Uint8Array>();
    const channel = new NewlineChannel({ readable: input.readable, writable: output.writable });
    const server = new JsonRpcConnection(channel).start();
    const call = server.request("first").then(() => "resolved", (e: unknown) => e);
    await settle();
    output.fail(new Error("EPIPE"));
    await settle();
    await server.notify("second").catch(() => {});
    expect(await call).toBeInstanceOf(Error);
    expect((await server.closed).reason).toBe("fault");
    expect(output.chunks.length).toBe(1);
  });
});

describe("JsonRpcConnection admission barrier", () => {
  it("dispatches nothing after a barrier request until its reply is queued; ordinary requests still run concurrently", async () => {
    const gateInit = deferred();
    const events: string[] = [];
    const { server, peer } = serverAndPeer({ isBarrier: (r) => r.method === "init" });
    const gateM = deferred();
    server
      .handle("init", async () => {
        events.push("init start");
        await gateInit.promise;
        return "ready";
      })
      .handle("m", async (p) => {
        events.push(`m ${p} start`);
        await gateM.promise;
        return p;
      })
      .onNotification("n", () => void events.push("n"))
      .start();
    await peer.send({ jsonrpc: "2.0", id: 1, method: "init" });
    await peer.send({ jsonrpc: "2.0", method: "n" });
    await peer.send({ jsonrpc: "2.0", id: 2, method: "m", params: 2 });
    await peer.send({ jsonrpc: "2.0", id: 3, method: "m", params: 3 });
    await settle();
    expect(events).toEqual(["init start"]);
    gateInit.resolve();
    const [first] = await peer.waitFor(1);
    expect(first).toEqual({ jsonrpc: "2.0", id: 1, result: "ready" });
    await settle();
    expect(events).toEqual(["init start", "n", "m 2 start", "m 3 start"]); // both m run at once
    gateM.resolve();
    await peer.waitFor(3);
    await server.close();
  });

  it("a throwing isBarrier is reported and the request is served as an ordinary one", async () => {
    const { server, peer, reports } = serverAndPeer({
      isBarrier: () => {
        throw new Error("Broken predicate");
      },
    });
    server.handle("m", () => "ok").start();
    await peer.send({ jsonrpc: "2.0", id: 1, method: "m" });
    await peer.send({ jsonrpc: "2.0", id: 2, method: "m" });
    const replies = await peer.waitFor(2);
    expect(replies.map((r) => r.result)).toEqual(["ok", "ok"]);
    expect(reports.map((r) => r.message)).toEqual(["Broken predicate", "Broken predicate"]);
    await server.close();
  });
});

describe("JsonRpcConnection cancellation", () => {
  it("aborts the handler's signal on notifications/cancelled and does not send its late result", async () => {
    const { server, peer } = serverAndPeer();
    const release = deferred();
    let signal: AbortSignal | undefined;
    server.handle("slow", async (_p, ctx) => {
      signal = ctx.signal;
      await release.promise; // ignores its signal on purpose
      return "late";
    }).handle("m", () => "other").start();
    await peer.send({ jsonrpc: "2.0", id: "a", method: "slow" });
    await settle();
    expect(signal?.aborted).toBe(false);
    await peer.send({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: "a", reason: "user" },
    });
    await settle();
    expect(signal?.aborted).toBe(true);
    release.resolve();
    await settle();
    await peer.send({ jsonrpc: "2.0", id: "b", method: "m" });
    const [only] = await peer.waitFor(1);
    expect(only).toEqual({ jsonrpc: "2.0", id: "b", result: "other" });
    await settle();
    expect(peer.lines.length).toBe(1);
    expect(server.activeHandlers).toBe(0);
    await server.close();
  });

  it("ignores notifications/cancelled for an unknown or finished id", async () => {
    const { server, peer } = serverAndPeer();
    server.handle("m", () => "ok").start();
    await peer.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 42 } });
    await peer.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: {} });
    await peer.send({ jsonrpc: "2.0", id: 1, method: "m" });
    expect(await peer.waitFor(1)).toEqual([{ jsonrpc: "2.0", id: 1, result: "ok" }]);
    await server.close();
  });

  it("sends notifications/cancelled and rejects at once when the caller's signal aborts", async () => {
    const { server, peer, reports } = serverAndPeer();
    server.start();
    const controller = new AbortController();
    const call = server.request("slow", { x: 1 }, { signal: controller.signal });
    const [req] = await peer.waitFor(1);
    const reason = new Error("Changed my mind");
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    expect(server.pendingRequests).toBe(0);
    const [, cancel] = await peer.waitFor(2);
    expect(cancel).toMatchObject({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: req.id },
    });
    // A late reply to the cancelled call is dropped, not delivered anywhere.
    await peer.send({ jsonrpc: "2.0", id: req.id, result: "late" });
    await settle();
    expect(reports).toEqual([]); // expected after a cancellation: dropped without a report
    await server.close();
  });

  it("rejects at once and sends nothing when the caller's signal is already aborted", async () => {
    const { server, peer } = serverAndPeer();
    server.start();
    const controller = new AbortController();
    controller.abort(new Error("Already"));
    await expect(server.request("m", {}, { signal: controller.signal })).rejects.toThrow("Already");
    await settle();
    expect(peer.lines).toEqual([]);
    await server.close();
  });

  it("sends notifications/cancelled when the signal aborts right after the request was queued", async () => {
    const { server, peer } = serverAndPeer();
    server.start();
    const controller = new AbortController();
    const call = server.request("m", {}, { signal: controller.signal });
    await Promise.resolve();
    await Promise.resolve();
    controller.abort(new Error("Quick"));
    await expect(call).rejects.toThrow("Quick");
    const lines = await peer.waitFor(1);
    await settle();
    const all = peer.messages;
    // Either the request never left (nothing written), or it left and a cancellation follows it.
    if (all.length > 0) {
      expect(lines[0].method).toBe("m");
      expect(all[1]).toMatchObject({ method: "notifications/cancelled", params: { requestId: lines[0].id } });
    }
    await server.close();
  });
});

describe("JsonRpcConnection options", () => {
  const [a] = createDuplexPair();
  for (
    const name of [
      "endOfStreamTimeout",
      "shutdownTimeout",
      "maxConcurrentRequests",
      "maxQueuedInputBytes",
    ] as const
  ) {
    for (
      const bad of [
        -1,
        Number.NaN,
        "5" as unknown as number,
        null as unknown as number,
        {} as unknown as number,
      ]
    ) {
      it(`rejects ${name} = ${String(bad)} with InvalidOptionError naming it`, () => {
        let thrown: unknown;
        try {
          new JsonRpcConnection(a, { [name]: bad });
        } catch (e) {
          thrown = e;
        }
        expect(thrown).toBeInstanceOf(InvalidOptionError);
        expect((thrown as Error).message).toContain(name);
      });
    }
  }

  it("rejects maxConcurrentRequests of 0 and 1.5", () => {
    expect(() => new JsonRpcConnection(createDuplexPair()[0], { maxConcurrentRequests: 0 })).toThrow(
      InvalidOptionError,
    );
    expect(() => new JsonRpcConnection(createDuplexPair()[0], { maxConcurrentRequests: 1.5 })).toThrow(
      InvalidOptionError,
    );
  });

  it("accepts zero timeouts and Infinity", () => {
    const time = new FakeTimeProvider();
    expect(() =>
      new JsonRpcConnection(createDuplexPair()[0], {
        endOfStreamTimeout: 0,
        shutdownTimeout: Number.POSITIVE_INFINITY,
        timeProvider: time,
      })
    ).not.toThrow();
  });

  it("rejects request() after close with ClosedError", async () => {
    const { server } = serverAndPeer();
    server.start();
    await server.close();
    await expect(server.request("m")).rejects.toBeInstanceOf(ClosedError);
    await expect(server.request("m")).rejects.toThrow(/owner/);
    await expect(server.notify("m")).rejects.toBeInstanceOf(ClosedError);
  });
});

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
