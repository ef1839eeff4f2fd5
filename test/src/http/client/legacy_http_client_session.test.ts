// deno-lint-ignore-file no-explicit-any -- tests reach into loosely typed peer objects
// The legacy-era HTTP session: initialize, Mcp-Session-Id, the GET stream with reconnection,
// backoff and Last-Event-ID, server-to-client requests answered by POST, resumption of a response
// stream, 404 re-initialization, DELETE on close, cancellation by notifications/cancelled.
import { describe, expect, it } from "vitest";
import { ContextClient, type ContextClientOptions } from "../../../../src/client/context_client.ts";
import { EraCache } from "../../../../src/client/era_cache.ts";
import {
  httpTransport,
  type HttpTransportOptions,
} from "../../../../src/http/client/http_client_transport.ts";
import { StreamBrokenError } from "../../../../src/http/client/http_client_errors.ts";
import { ClosedError } from "../../../../src/wire/errors.ts";
import { FakeTimeProvider, flushMicrotasks } from "../../../../testing/fake_time_provider.ts";
import {
  FakeFetch,
  frame,
  INITIALIZE,
  result,
  type SeenRequest,
  sse,
  type SseControl,
} from "../../../helpers/fake_fetch.ts";

interface Script {
  /** Answers a request other than initialize; default: `{}`. */
  post?: (req: SeenRequest) => Response | Promise<Response>;
  /** Answers each GET; default: 405. */
  get?: (req: SeenRequest, n: number) => Response | Promise<Response>;
}

function legacyServer(script: Script = {}) {
  let sessions = 0;
  let gets = 0;
  const live = new Set<string>();
  const fake = new FakeFetch((req) => {
    const session = req.headers.get("mcp-session-id");
    if (req.method === "GET") {
      return script.get ? script.get(req, gets++) : new Response(null, { status: 405 });
    }
    if (req.method === "DELETE") {
      live.delete(session!);
      return new Response(null, { status: 200 });
    }
    if (req.body.method === "initialize") {
      const id = `s${++sessions}`;
      live.add(id);
      return result(req.body.id, INITIALIZE, { "Mcp-Session-Id": id });
    }
    if (session === null || !live.has(session)) {
      return new Response(
        JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" } }),
        { status: 404 },
      );
    }
    if (req.body.id === undefined || !("method" in req.body)) return new Response(null, { status: 202 });
    return script.post ? script.post(req) : result(req.body.id, {});
  });
  return { fake, live, forget: () => live.clear() };
}

async function connect(
  fake: FakeFetch,
  options: ContextClientOptions = {},
  transport: HttpTransportOptions = {},
) {
  const reports: Error[] = [];
  const client = await ContextClient.connect(
    httpTransport("http://h.test/mcp", { fetch: fake.fetch, ...transport }),
    {
      era: "legacy",
      eraCache: new EraCache(),
      onReport: (e) => reports.push(e),
      ...options,
    },
  );
  return { client, reports };
}

const gets = (fake: FakeFetch) => fake.calls.filter((c) => c.method === "GET");
const note = (method: string, params: unknown = {}) => ({ jsonrpc: "2.0", method, params });

describe("legacy HTTP session: handshake and headers", () => {
  it("initialize carries no session; the session id and MCP-Protocol-Version go on everything after it", async () => {
    const { fake } = legacyServer();
    const { client } = await connect(fake);
    expect(client.era).toBe("legacy");
    expect(client.protocolVersion).toBe("2025-11-25");
    const [init, initialized] = fake.calls;
    expect(init.body.method).toBe("initialize");
    expect(init.headers.get("mcp-session-id")).toBeNull();
    expect(init.headers.get("mcp-protocol-version")).toBeNull();
    expect(initialized.body.method).toBe("notifications/initialized");
    expect(initialized.headers.get("mcp-session-id")).toBe("s1");
    expect(initialized.headers.get("mcp-protocol-version")).toBe("2025-11-25");
    await client.request("tools/list", {});
    const sent = fake.calls.at(-1)!;
    expect(sent.headers.get("mcp-session-id")).toBe("s1");
    expect(sent.headers.get("mcp-protocol-version")).toBe("2025-11-25");
    expect(sent.headers.get("mcp-method")).toBeNull();
  });

  it("close sends DELETE with the session id and rejects pending requests", async () => {
    const stream = sse();
    const server = legacyServer({ post: () => stream.response });
    const { client } = await connect(server.fake);
    const pending = client.request("tools/call", { name: "slow" }).catch((e: any) => e);
    await flushMicrotasks();
    await client.close();
    expect(await pending).toBeInstanceOf(ClosedError);
    const del = server.fake.calls.find((c) => c.method === "DELETE")!;
    expect(del.headers.get("mcp-session-id")).toBe("s1");
    expect(server.live.size).toBe(0);
  });

  it("a server without sessions gets no DELETE", async () => {
    const fake = new FakeFetch((req) => {
      if (req.method === "GET") return new Response(null, { status: 405 });
      return req.body.id === undefined
        ? new Response(null, { status: 202 })
        : result(req.body.id, INITIALIZE);
    });
    const { client } = await connect(fake);
    await client.close();
    expect(fake.calls.some((c) => c.method === "DELETE")).toBe(false);
  });

  it("404 on a request re-initializes (a new session) and sends the request again", async () => {
    const server = legacyServer({
      post: (req) => result(req.body.id, { session: req.headers.get("mcp-session-id") }),
    });
    const { client, reports } = await connect(server.fake);
    server.forget();
    await expect(client.request("tools/list", {})).resolves.toEqual({ session: "s2" });
    expect(server.fake.of("initialize")).toHaveLength(2);
    expect(server.fake.of("tools/list").map((c) => c.headers.get("mcp-session-id"))).toEqual(["s1", "s2"]);
    expect(reports.some((e) => /404.*initializing again/.test(e.message))).toBe(true);
  });
});

describe("legacy HTTP session: server messages on SSE", () => {
  it("a server-to-client request on a response stream is answered by POST with the session headers", async () => {
    const server = legacyServer({
      post: (req) => {
        if (req.body.method !== "tools/call") return result(req.body.id, {});
        const s = sse();
        s.push(frame({ jsonrpc: "2.0", id: "srv-1", method: "roots/list", params: {} }));
        s.push(frame({ jsonrpc: "2.0", id: "srv-2", method: "sampling/createMessage", params: {} }));
        s.push(frame({ jsonrpc: "2.0", id: req.body.id, result: { done: true } }));
        s.end();
        return s.response;
      },
    });
    const { client } = await connect(server.fake);
    client.handle("roots/list", () => ({ roots: [{ uri: "file:///w" }] }));
    await expect(client.request("tools/call", { name: "x" })).resolves.toEqual({ done: true });
    for (let i = 0; i < 20 && server.fake.calls.filter((c) => c.body?.id === "srv-2").length === 0; i++) {
      await flushMicrotasks();
    }
    const replies = server.fake.calls.filter((c) =>
      typeof c.body?.id === "string" && c.body.id.startsWith("srv")
    );
    expect(replies.map((c) => c.body)).toEqual([
      { jsonrpc: "2.0", id: "srv-1", result: { roots: [{ uri: "file:///w" }] } },
      { jsonrpc: "2.0", id: "srv-2", error: expect.objectContaining({ code: -32601 }) },
    ]);
    expect(replies[0].headers.get("mcp-session-id")).toBe("s1");
  });

  it("cancelling posts notifications/cancelled naming the request, and rejects with the reason", async () => {
    const stream = sse();
    const server = legacyServer({
      post: (req) => (req.body.method === "tools/call" ? stream.response : result(req.body.id, {})),
    });
    const { client } = await connect(server.fake);
    const controller = new AbortController();
    const pending = client.request("tools/call", { name: "slow" }, { signal: controller.signal }).catch((
      e: any,
    ) => e);
    await flushMicrotasks();
    const reason = new Error("no longer needed");
    controller.abort(reason);
    expect(await pending).toBe(reason);
    for (let i = 0; i < 20 && server.fake.of("notifications/cancelled").length === 0; i++) {
      await flushMicrotasks();
    }
    const [cancelled] = server.fake.of("notifications/cancelled");
    expect(cancelled.body.params).toEqual({
      requestId: server.fake.of("tools/call")[0].body.id,
      reason: "no longer needed",
    });
    expect(cancelled.headers.get("mcp-session-id")).toBe("s1");
  });

  it("a response stream that ends without the reply and without an event id rejects at once with StreamBrokenError", async () => {
    const server = legacyServer({
      post: () => {
        const s = sse();
        s.push(frame(note("notifications/message")));
        s.end();
        return s.response;
      },
    });
    const { client } = await connect(server.fake);
    await expect(client.request("tools/list", {})).rejects.toBeInstanceOf(StreamBrokenError);
  });

  it("a response stream closed after a priming event resumes through GET with Last-Event-ID after the retry interval", async () => {
    const time = new FakeTimeProvider();
    let resumed: SseControl | undefined;
    const server = legacyServer({
      post: () => {
        const s = sse();
        s.push(frame(undefined, { id: "ev-1", retry: 500 }));
        s.end();
        return s.response;
      },
      get: (req) => {
        if (req.headers.get("last-event-id") === null) return new Response(null, { status: 405 });
        resumed = sse();
        return resumed.response;
      },
    });
    const { client } = await connect(server.fake, { timeProvider: time });
    const pending = client.request("tools/call", { name: "test_reconnection" });
    await time.advance(499);
    expect(gets(server.fake).filter((g) => g.headers.get("last-event-id"))).toHaveLength(0);
    await time.advance(1);
    for (let i = 0; i < 20 && resumed === undefined; i++) await flushMicrotasks();
    const resume = gets(server.fake).find((g) => g.headers.get("last-event-id"))!;
    expect(resume.headers.get("last-event-id")).toBe("ev-1");
    expect(resume.headers.get("accept")).toBe("text/event-stream");
    expect(resume.headers.get("mcp-session-id")).toBe("s1");
    const id = server.fake.of("tools/call")[0].body.id;
    resumed!.push(frame({ jsonrpc: "2.0", id, result: { late: true } }, { id: "ev-2" }));
    await expect(pending).resolves.toEqual({ late: true });
  });
});

describe("legacy HTTP session: the GET stream", () => {
  it("opens after initialize and delivers server notifications to the client's handlers", async () => {
    const stream = sse();
    const server = legacyServer({
      get: (_req, n) => (n === 0 ? stream.response : new Promise<Response>(() => {})),
    });
    const { client } = await connect(server.fake);
    const got = new Promise((resolve) => client.onNotification("notifications/tools/list_changed", resolve));
    stream.push(frame(note("notifications/tools/list_changed", { x: 1 })));
    await expect(got).resolves.toEqual({ x: 1 });
    const [get] = gets(server.fake);
    expect(get.headers.get("accept")).toBe("text/event-stream");
    expect(get.headers.get("mcp-session-id")).toBe("s1");
    expect(get.headers.get("mcp-protocol-version")).toBe("2025-11-25");
    await client.close();
  });

  it("reconnects after the server's retry interval with Last-Event-ID when the stream ends", async () => {
    const time = new FakeTimeProvider();
    const first = sse();
    const server = legacyServer({ get: (_req, n) => (n === 0 ? first.response : sse().response) });
    const { client } = await connect(server.fake, { timeProvider: time });
    first.push(frame(note("notifications/message"), { id: "g-7", retry: 3_000 }));
    first.end();
    await time.advance(2_999);
    expect(gets(server.fake)).toHaveLength(1);
    await time.advance(1);
    await flushMicrotasks();
    expect(gets(server.fake)).toHaveLength(2);
    expect(gets(server.fake)[1].headers.get("last-event-id")).toBe("g-7");
    await client.close();
  });

  it("backs off after failures (1 000, 1 500, 2 250 ms), not earlier, and gives up after maxAttempts with a report", async () => {
    const time = new FakeTimeProvider();
    const server = legacyServer({ get: () => new Response("down", { status: 503 }) });
    const { client, reports } = await connect(server.fake, { timeProvider: time }, {
      reconnect: { maxAttempts: 4 },
    });
    await flushMicrotasks();
    expect(gets(server.fake)).toHaveLength(1);
    for (const wait of [1_000, 1_500, 2_250]) {
      const before = gets(server.fake).length;
      await time.advance(wait - 1);
      expect(gets(server.fake)).toHaveLength(before);
      await time.advance(1);
      await flushMicrotasks();
      expect(gets(server.fake)).toHaveLength(before + 1);
    }
    await time.advance(60_000);
    expect(gets(server.fake)).toHaveLength(4);
    expect(reports.at(-1)!.message).toMatch(/failed 4 times in a row; giving up/);
    await client.close();
  });

  it("405 on GET means no GET stream: no reconnection", async () => {
    const time = new FakeTimeProvider();
    const server = legacyServer();
    const { client } = await connect(server.fake, { timeProvider: time });
    await time.advance(120_000);
    expect(gets(server.fake)).toHaveLength(1);
    await client.close();
  });

  it("a 4xx other than 405 on GET (400) is reported once and not retried; 404 re-initializes once (the session is gone), then likewise; 429 is retried", async () => {
    for (const [status, expected] of [[404, 2], [400, 1], [429, 2]] as const) {
      const time = new FakeTimeProvider();
      const server = legacyServer({ get: () => new Response("no", { status }) });
      const { client, reports } = await connect(server.fake, { timeProvider: time });
      await flushMicrotasks();
      await time.advance(1_000);
      await flushMicrotasks();
      for (let i = 0; i < 10; i++) await flushMicrotasks();
      expect(gets(server.fake), String(status)).toHaveLength(expected);
      expect(server.fake.of("initialize"), String(status)).toHaveLength(status === 404 ? 2 : 1);
      expect(reports.some((e) => e.message.includes(`HTTP ${status}`))).toBe(true);
      await client.close();
    }
  });

  it("a server without sessions that answers GET with 404 has no GET stream: not re-initialized, not retried", async () => {
    const time = new FakeTimeProvider();
    const fake = new FakeFetch((req) => {
      if (req.method === "GET") return new Response("no such route", { status: 404 });
      return req.body.id === undefined
        ? new Response(null, { status: 202 })
        : result(req.body.id, INITIALIZE);
    });
    const { client, reports } = await connect(fake, { timeProvider: time });
    await flushMicrotasks();
    await time.advance(120_000);
    for (let i = 0; i < 10; i++) await flushMicrotasks();
    expect(gets(fake)).toHaveLength(1);
    expect(fake.of("initialize")).toHaveLength(1);
    expect(reports.some((e) => e.message.includes("HTTP 404"))).toBe(true);
    await client.close();
  });

  it("listen: false opens no GET stream", async () => {
    const server = legacyServer();
    const { client } = await connect(server.fake, {}, { listen: false });
    await flushMicrotasks();
    expect(gets(server.fake)).toHaveLength(0);
    await client.close();
  });
});
