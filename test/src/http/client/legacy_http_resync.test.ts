// The legacy-era HTTP client when its server forgets the session under an open GET stream (its
// replica went away behind a session pin) or the GET stream reopens without resuming: the session
// re-initializes by itself, renews its resource subscriptions, and legacy listen streams yield resync.
import { describe, expect, it } from "vitest";
import { ContextClient } from "../../../../src/client/context_client.ts";
import { EraCache } from "../../../../src/client/era_cache.ts";
import type { ChangeEvent } from "../../../../src/client/features/feature_types.ts";
import { httpTransport } from "../../../../src/http/client/http_client_transport.ts";
import { FakeTimeProvider, flushMicrotasks } from "../../../../testing/fake_time_provider.ts";
import {
  FakeFetch,
  frame,
  result,
  type SeenRequest,
  sse,
  type SseControl,
} from "../../../helpers/fake_fetch.ts";

const CAPABILITIES = { tools: { listChanged: true }, resources: { subscribe: true } };
const INIT = {
  protocolVersion: "2025-11-25",
  capabilities: CAPABILITIES,
  serverInfo: { name: "fake", version: "1" },
};

/** A sessionful legacy server whose GET streams the test drives (`streams[n]` for GET n). */
function server(get: (req: SeenRequest, n: number) => Response) {
  let sessions = 0;
  let gets = 0;
  const live = new Set<string>();
  const fake = new FakeFetch((req) => {
    const session = req.headers.get("mcp-session-id");
    if (req.method === "DELETE") return new Response(null, { status: 200 });
    if (req.method === "POST" && req.body.method === "initialize") {
      const id = `s${++sessions}`;
      live.add(id);
      return result(req.body.id, INIT, { "Mcp-Session-Id": id });
    }
    if (session === null || !live.has(session)) {
      return new Response(
        JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } }),
        { status: 404 },
      );
    }
    if (req.method === "GET") return get(req, gets++);
    if (req.body.id === undefined) return new Response(null, { status: 202 });
    return result(req.body.id, {});
  });
  return { fake, forget: () => live.clear() };
}

async function connect(fake: FakeFetch, time: FakeTimeProvider) {
  const reports: Error[] = [];
  const client = await ContextClient.connect(httpTransport("http://h.test/mcp", { fetch: fake.fetch }), {
    era: "legacy",
    eraCache: new EraCache(),
    timeProvider: time,
    onReport: (e) => reports.push(e),
  });
  return { client, reports };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await flushMicrotasks();
}

async function drain(stream: AsyncIterator<ChangeEvent> & { pending: number }): Promise<ChangeEvent[]> {
  const out: ChangeEvent[] = [];
  while (stream.pending > 0) out.push((await stream.next()).value as ChangeEvent);
  return out;
}

describe("legacy HTTP client: a session lost under an open GET stream", () => {
  it("re-initializes on the GET stream's 404, opens a new GET stream, subscribes again, and listen streams yield resync", async () => {
    const time = new FakeTimeProvider();
    const streams: SseControl[] = [];
    const s = server((_req, n) => (streams[n] = sse()).response);
    const { client, reports } = await connect(s.fake, time);
    const changes = client.listen({ tools: true, resourceUris: ["file:///a"] });
    expect(await changes.ready).toEqual({ toolsListChanged: true, resourceSubscriptions: ["file:///a"] });
    await settle();
    expect(streams.length).toBe(1);
    streams[0]!.push(frame({ jsonrpc: "2.0", method: "notifications/tools/list_changed" }));
    await settle();
    expect(await drain(changes)).toEqual([{ type: "toolsListChanged" }]);

    s.forget(); // the replica holding the session is gone
    streams[0]!.fail(new TypeError("terminated"));
    await settle();
    await time.advance(1_000); // the GET stream's first reconnection: 404
    await settle();
    const inits = s.fake.calls.filter((c) => c.method === "POST" && c.body.method === "initialize");
    expect(inits).toHaveLength(2);
    expect(reports.some((e) => /forgot session "s1" \(404\); initializing again/.test(e.message))).toBe(true);
    const subscribes = s.fake.calls.filter((c) =>
      c.method === "POST" && c.body.method === "resources/subscribe"
    );
    expect(subscribes.map((c) => [c.headers.get("mcp-session-id"), c.body.params.uri])).toEqual([[
      "s1",
      "file:///a",
    ], ["s2", "file:///a"]]);
    expect(await drain(changes)).toEqual([{ type: "resync" }]);
    expect(streams.length).toBe(2); // the new session's GET stream
    expect(s.fake.calls.filter((c) => c.method === "GET").at(-1)!.headers.get("mcp-session-id")).toBe("s2");
    streams[1]!.push(frame({ jsonrpc: "2.0", method: "notifications/tools/list_changed" }));
    await settle();
    expect(await drain(changes)).toEqual([{ type: "toolsListChanged" }]);
    await changes.close();
    await client.close();
  });

  it("a GET stream that reopens without a Last-Event-ID yields resync (the same session: no new subscribe); one resumed with Last-Event-ID does not", async () => {
    const time = new FakeTimeProvider();
    const streams: SseControl[] = [];
    const s = server((_req, n) => (streams[n] = sse()).response);
    const { client } = await connect(s.fake, time);
    const changes = client.listen({ tools: true, resourceUris: ["file:///a"] });
    await changes.ready;
    await settle();
    streams[0]!.end(); // no event id: what was sent in the gap is lost
    await settle();
    await time.advance(1_000);
    await settle();
    expect(streams.length).toBe(2);
    expect(await drain(changes)).toEqual([{ type: "resync" }]);

    streams[1]!.push(
      frame({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: 1 } }, {
        id: "e-1",
      }),
    );
    streams[1]!.end(); // with an event id: the server replays from it
    await settle();
    await time.advance(1_000);
    await settle();
    expect(streams.length).toBe(3);
    expect(s.fake.calls.filter((c) => c.method === "GET").at(-1)!.headers.get("last-event-id")).toBe("e-1");
    expect(changes.pending).toBe(0);
    expect(s.fake.calls.filter((c) => c.method === "POST" && c.body.method === "initialize")).toHaveLength(1);
    expect(s.fake.calls.filter((c) => c.method === "POST" && c.body.method === "resources/subscribe"))
      .toHaveLength(1);
    await changes.close();
    await client.close();
  });
});
