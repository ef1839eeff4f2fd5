// deno-lint-ignore-file no-explicit-any -- tests reach into loosely typed peer objects
// The modern-era HTTP exchange: one POST per request, derived headers, x-mcp-header, JSON and SSE
// replies, retries on -32020 and -32022, broken streams, cancellation, timeouts.
import { describe, expect, it } from "vitest";
import { ContextClient, type ContextClientOptions } from "../../../../src/client/context_client.ts";
import { EraCache } from "../../../../src/client/era_cache.ts";
import {
  httpTransport,
  type HttpTransportOptions,
} from "../../../../src/http/client/http_client_transport.ts";
import { HttpStatusError, StreamBrokenError } from "../../../../src/http/client/http_client_errors.ts";
import { ClosedError, JsonRpcError } from "../../../../src/wire/errors.ts";
import { FakeTimeProvider } from "../../../../testing/fake_time_provider.ts";
import {
  DISCOVER,
  FakeFetch,
  frame,
  type Responder,
  result,
  rpcError,
  type SeenRequest,
  sse,
  sseSplit,
} from "../../../helpers/fake_fetch.ts";

const TOOLS = [
  {
    name: "sql",
    inputSchema: {
      type: "object",
      properties: {
        region: { type: "string", "x-mcp-header": "Region" },
        n: { type: "integer", "x-mcp-header": "N" },
        q: { type: "string" },
      },
    },
  },
  {
    name: "bad",
    inputSchema: { type: "object", properties: { o: { type: "object", "x-mcp-header": "Obj" } } },
  },
  { name: "plain", inputSchema: { type: "object" } },
];

function modern(responder: Responder): FakeFetch {
  return new FakeFetch((
    req,
    i,
  ) => (req.body?.method === "server/discover" ? result(req.body.id, DISCOVER) : responder(req, i)));
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
      eraCache: new EraCache(),
      onReport: (e) => reports.push(e),
      ...options,
    },
  );
  return { client, reports };
}

const echo: Responder = (req) => result(req.body.id, { echoed: req.body.method });
const last = (fake: FakeFetch): SeenRequest => fake.calls.at(-1)!;

describe("modern HTTP exchange: headers", () => {
  it("derives MCP-Protocol-Version, Mcp-Method and Mcp-Name from the body; adds custom headers (fixed or per request)", async () => {
    const fake = modern(echo);
    let n = 0;
    const { client } = await connect(fake, {}, { headers: () => ({ Authorization: `Bearer t${++n}` }) });
    await client.request("resources/read", { uri: "file:///a b.txt" });
    const sent = last(fake);
    expect(sent.headers.get("mcp-protocol-version")).toBe("2026-07-28");
    expect(sent.headers.get("mcp-method")).toBe("resources/read");
    expect(sent.headers.get("mcp-name")).toBe("file:///a b.txt");
    expect(sent.headers.get("content-type")).toBe("application/json");
    expect(sent.headers.get("accept")).toBe("application/json, text/event-stream");
    expect(sent.headers.get("authorization")).toBe("Bearer t2");
    expect(sent.body.params._meta["io.modelcontextprotocol/protocolVersion"]).toBe("2026-07-28");
    await client.request("prompts/get", { name: "héllo" });
    expect(last(fake).headers.get("mcp-name")).toBe("=?base64?aMOpbGxv?=");
  });

  it("mirrors x-mcp-header arguments into Mcp-Param-* after tools/list, omitting null and absent ones", async () => {
    const fake = modern((
      req,
    ) => (req.body.method === "tools/list" ? result(req.body.id, { tools: TOOLS }) : echo(req, 0)));
    const { client } = await connect(fake);
    await client.request("tools/call", { name: "sql", arguments: { region: "eu", n: 42, q: "x" } });
    expect(last(fake).headers.get("mcp-param-region")).toBeNull(); // not listed yet: nothing known
    await client.request("tools/list", {});
    await client.request("tools/call", { name: "sql", arguments: { region: " padded ", n: 42, q: "x" } });
    expect(last(fake).headers.get("mcp-param-region")).toBe("=?base64?IHBhZGRlZCA=?=");
    expect(last(fake).headers.get("mcp-param-n")).toBe("42");
    expect(last(fake).headers.get("mcp-param-q")).toBeNull();
    await client.request("tools/call", { name: "sql", arguments: { region: null } });
    expect(last(fake).headers.get("mcp-param-region")).toBeNull();
    expect(last(fake).headers.get("mcp-param-n")).toBeNull();
  });

  it("drops tools with invalid x-mcp-header annotations from tools/list, with a warning through onReport", async () => {
    const fake = modern((req) => result(req.body.id, { tools: TOOLS, nextCursor: "c2" }));
    const { client, reports } = await connect(fake);
    const list = (await client.request("tools/list", {})) as {
      tools: Array<{ name: string }>;
      nextCursor: string;
    };
    expect(list.tools.map((t) => t.name)).toEqual(["sql", "plain"]);
    expect(list.nextCursor).toBe("c2");
    expect(reports).toHaveLength(1);
    expect(reports[0].message).toMatch(/Dropped tool "bad" from tools\/list: x-mcp-header "Obj"/);
  });
});

describe("modern HTTP exchange: retries", () => {
  it("on -32020 lists the tools again and retries tools/call once with the new headers", async () => {
    let listed = 0;
    const fake = modern((req) => {
      if (req.body.method === "tools/list") {
        return result(req.body.id, { tools: listed++ === 0 ? [] : TOOLS });
      }
      if (req.headers.get("mcp-param-region") !== "eu") {
        return rpcError(req.body.id, -32020, "Header mismatch: Mcp-Param-Region missing");
      }
      return result(req.body.id, { ok: true });
    });
    const { client } = await connect(fake);
    await client.request("tools/list", {});
    await expect(client.request("tools/call", { name: "sql", arguments: { region: "eu" } })).resolves.toEqual(
      { ok: true },
    );
    const calls = fake.of("tools/call");
    expect(calls).toHaveLength(2);
    expect(calls[1].body.id).not.toBe(calls[0].body.id);
    expect(fake.of("tools/list")).toHaveLength(2);
    expect(fake.of("tools/list")[1].body.params._meta["io.modelcontextprotocol/protocolVersion"]).toBe(
      "2026-07-28",
    );
  });

  it("a second -32020 rejects with it: one retry, not a loop", async () => {
    const fake = modern((
      req,
    ) => (req.body.method === "tools/list"
      ? result(req.body.id, { tools: [] })
      : rpcError(req.body.id, -32020, "Header mismatch"))
    );
    const { client } = await connect(fake);
    const error: any = await client.request("tools/call", { name: "sql", arguments: {} }).catch((e: any) =>
      e
    );
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error.code).toBe(-32020);
    expect(fake.of("tools/call")).toHaveLength(2);
  });

  it("on -32022 retries once with a version from data.supported", async () => {
    let first = true;
    const fake = modern((req) => {
      if (first) {
        first = false;
        return rpcError(req.body.id, -32022, "Unsupported", 400, {
          supported: ["2026-07-28"],
          requested: "x",
        });
      }
      return echo(req, 0);
    });
    const { client } = await connect(fake);
    await expect(client.request("tools/list", {})).resolves.toEqual({ echoed: "tools/list" });
    const [a, b] = fake.of("tools/list");
    expect(b.headers.get("mcp-protocol-version")).toBe("2026-07-28");
    expect(b.body.params._meta["io.modelcontextprotocol/protocolVersion"]).toBe(
      b.headers.get("mcp-protocol-version"),
    );
    expect(b.body.id).not.toBe(a.body.id);
  });
});

describe("modern HTTP exchange: responses", () => {
  const notes = (method: string, i: number) => ({
    jsonrpc: "2.0",
    method,
    params: { progressToken: "p", progress: i },
  });

  it.each([1, 2, 3, 7])(
    "an SSE reply split every %i bytes: related notifications in order, then the result",
    async (every) => {
      const fake = modern((req) =>
        sseSplit(
          "\uFEFF: comment\r\n\r\n" + frame(notes("notifications/progress", 1), { crlf: true }) +
            frame(notes("notifications/message", 2)) +
            frame({ jsonrpc: "2.0", id: req.body.id, result: { text: "héllo 世界" } }, { crlf: true }),
          every,
        )
      );
      const { client } = await connect(fake);
      const seen: string[] = [];
      const value = await client.request("tools/call", { name: "x" }, {
        onNotification: (m) => seen.push(m),
      });
      expect(value).toEqual({ text: "héllo 世界" });
      expect(seen).toEqual(["notifications/progress", "notifications/message"]);
    },
  );

  it("notifications of a request without onNotification go to the client's handlers", async () => {
    const fake = modern((req) =>
      sseSplit(
        frame(notes("notifications/message", 1)) + frame({ jsonrpc: "2.0", id: req.body.id, result: {} }),
        4,
      )
    );
    const { client } = await connect(fake);
    const got: unknown[] = [];
    client.onNotification("notifications/message", (p) => void got.push(p));
    await client.request("tools/list", {});
    expect(got).toHaveLength(1);
  });

  it("an HTTP error without a JSON-RPC body rejects with HttpStatusError naming the status", async () => {
    const fake = modern(() => new Response("bad gateway", { status: 502 }));
    const { client } = await connect(fake);
    const error: any = await client.request("tools/list", {}).catch((e: any) => e);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error.status).toBe(502);
    expect(error.message).toMatch(/HTTP 502: bad gateway/);
  });

  it("a 404 -32601 rejects with the JSON-RPC error", async () => {
    const fake = modern((req) => rpcError(req.body.id, -32601, "Method not found: x/y", 404));
    const { client } = await connect(fake);
    const error: any = await client.request("x/y", {}).catch((e: any) => e);
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error.code).toBe(-32601);
  });
});

describe("modern HTTP exchange: broken streams", () => {
  it("a stream that ends before the reply rejects at once with StreamBrokenError, without re-issuing", async () => {
    const fake = modern(() =>
      sseSplit(
        frame({
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: 1, progress: 1 },
        }),
        8,
      )
    );
    const { client } = await connect(fake);
    const error: any = await client.request("tools/call", { name: "x" }).catch((e: any) => e);
    expect(error).toBeInstanceOf(StreamBrokenError);
    expect(error.code).toBe("read_failed");
    expect(error.method).toBe("tools/call");
    expect(fake.of("tools/call")).toHaveLength(1);
  });

  it("a stream that fails mid-way rejects with StreamBrokenError carrying the cause", async () => {
    const stream = sse();
    const fake = modern(() => stream.response);
    const { client } = await connect(fake);
    const pending = client.request("tools/call", { name: "x" }).catch((e: any) => e);
    stream.push(": hi\n\n");
    stream.fail(new Error("socket hang up"));
    const error: any = await pending;
    expect(error).toBeInstanceOf(StreamBrokenError);
    expect(error.message).toMatch(/socket hang up/);
  });

  it("idempotent: re-issues once with a new id, and reports it", async () => {
    let n = 0;
    const fake = modern((
      req,
    ) => (n++ === 0 ? sseSplit(": nothing\n\n", 3) : result(req.body.id, { again: true })));
    const { client, reports } = await connect(fake);
    await expect(client.request("tools/list", {}, { idempotent: true })).resolves.toEqual({ again: true });
    const [a, b] = fake.of("tools/list");
    expect(b.body.id).not.toBe(a.body.id);
    expect(reports[0].message).toMatch(/re-issuing it with a new id/);
  });

  it("idempotent: a proxy's 502, 503 or 504 (the replica behind it failed) re-issues once; a 500 does not, nor a request not marked idempotent", async () => {
    for (const status of [502, 503, 504]) {
      let n = 0;
      const fake = modern((
        req,
      ) => (n++ === 0 ? new Response("bad gateway", { status }) : result(req.body.id, { again: status })));
      const { client } = await connect(fake);
      await expect(client.request("tools/list", {}, { idempotent: true })).resolves.toEqual({
        again: status,
      });
      expect(fake.of("tools/list")).toHaveLength(2);
    }
    const fake500 = modern(() => new Response("oops", { status: 500 }));
    await expect((await connect(fake500)).client.request("tools/list", {}, { idempotent: true })).rejects
      .toMatchObject({ status: 500 });
    expect(fake500.of("tools/list")).toHaveLength(1);
    const plain = modern(() => new Response("bad gateway", { status: 502 }));
    await expect((await connect(plain)).client.request("tools/list", {})).rejects.toBeInstanceOf(
      HttpStatusError,
    );
    expect(plain.of("tools/list")).toHaveLength(1);
  });

  it("idempotent re-issues only once: a second break rejects", async () => {
    const fake = modern(() => sseSplit(": nothing\n\n", 3));
    const { client } = await connect(fake);
    await expect(client.request("tools/list", {}, { idempotent: true })).rejects.toBeInstanceOf(
      StreamBrokenError,
    );
    expect(fake.of("tools/list")).toHaveLength(2);
  });
});

describe("modern HTTP exchange: cancellation, timeouts, close", () => {
  it("aborting the signal aborts the fetch and rejects with the reason; no notifications/cancelled is posted", async () => {
    const stream = sse();
    const fake = modern(() => stream.response);
    const { client } = await connect(fake);
    const controller = new AbortController();
    const pending = client.request("tools/call", { name: "slow" }, { signal: controller.signal }).catch((
      e: any,
    ) => e);
    await new Promise((r) => setTimeout(r, 0));
    const reason = new Error("user cancelled");
    controller.abort(reason);
    expect(await pending).toBe(reason);
    expect(last(fake).signal!.aborted).toBe(true);
    await expect(stream.cancelled).resolves.toBeDefined();
    expect(fake.of("notifications/cancelled")).toHaveLength(0);
  });

  it("requestTimeout is pushed back by progress, and maxTotalTimeout bounds it anyway", async () => {
    const time = new FakeTimeProvider();
    const stream = sse();
    const fake = modern(() => stream.response);
    const { client } = await connect(fake, { timeProvider: time }, {
      requestTimeout: 1_000,
      maxTotalTimeout: 2_500,
    });
    const pending = client.request("tools/call", { name: "slow" }).catch((e: any) => e);
    let settled = false;
    void pending.then(() => (settled = true));
    const progress = (i: number) =>
      stream.push(
        frame({
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: 1, progress: i },
        }),
      );
    await time.advance(900);
    progress(1);
    await time.advance(900); // 1 800: 900 since progress
    expect(settled).toBe(false);
    progress(2);
    await time.advance(699); // 2 499
    expect(settled).toBe(false);
    await time.advance(1); // 2 500: the total bound
    const error: any = await pending;
    expect(error.code).toBe("timeout");
    expect(error.timeoutMs).toBe(2_500);
    expect(last(fake).signal!.aborted).toBe(true);
  });

  it("requestTimeout fires after that much silence, not before", async () => {
    const time = new FakeTimeProvider();
    const stream = sse();
    const fake = modern(() => stream.response);
    const { client } = await connect(fake, { timeProvider: time }, { requestTimeout: 1_000 });
    let settled = false;
    const pending = client.request("tools/list", {}).catch((e: any) => e).finally(() => (settled = true));
    await time.advance(999);
    expect(settled).toBe(false);
    await time.advance(1);
    const error: any = await pending;
    expect(error.code).toBe("timeout");
    expect(error.timeoutMs).toBe(1_000);
  });

  it("close rejects pending requests with ClosedError and later requests too", async () => {
    const stream = sse();
    const fake = modern(() => stream.response);
    const { client } = await connect(fake);
    const pending = client.request("tools/list", {}).catch((e: any) => e);
    await new Promise((r) => setTimeout(r, 0));
    await client.close();
    expect(await pending).toBeInstanceOf(ClosedError);
    await expect(client.request("tools/list", {})).rejects.toBeInstanceOf(ClosedError);
    await expect(client.closed).resolves.toEqual({ reason: "closed" });
  });
});

describe("modern HTTP exchange: the client around it", () => {
  it("has no JsonRpcConnection (connection throws ProtocolError); notify posts one message and accepts 202", async () => {
    const fake = modern((
      req,
    ) => (req.body.id === undefined ? new Response(null, { status: 202 }) : echo(req, 0)));
    const { client } = await connect(fake);
    expect(() => client.connection).toThrow(/no JsonRpcConnection/);
    await client.notify("notifications/something", { a: 1 });
    expect(last(fake).body).toEqual({ jsonrpc: "2.0", method: "notifications/something", params: { a: 1 } });
    expect(last(fake).headers.get("mcp-method")).toBe("notifications/something");
  });

  it("sends the caller's id, and a subscriptions/listen request has no timeout", async () => {
    const time = new FakeTimeProvider();
    const stream = sse();
    const fake = modern((
      req,
    ) => (req.body.method === "subscriptions/listen" ? stream.response : echo(req, 0)));
    const { client } = await connect(fake, { timeProvider: time }, {
      requestTimeout: 1_000,
      maxTotalTimeout: 2_000,
    });
    await client.request("tools/list", {}, { id: "mine-1" });
    expect(last(fake).body.id).toBe("mine-1");
    let settled = false;
    const listening = client.request("subscriptions/listen", { notifications: {} }, { id: "sub-1" }).finally(
      () => (settled = true),
    );
    await time.advance(10_000);
    expect(settled).toBe(false);
    stream.push(frame({ jsonrpc: "2.0", id: "sub-1", result: { ended: true } }));
    await expect(listening).resolves.toEqual({ ended: true });
  });
});
