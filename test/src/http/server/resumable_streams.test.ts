/**
 * Resumable legacy SSE streams (2025-11-25 "Resumability and Redelivery") through createHttpHandler:
 * ids on every event, the priming event and retry, replay on GET + Last-Event-ID, polling, refusals.
 */
import { describe, expect, it } from "vitest";
import { MemoryEventStore } from "../../../../src/http/server/event_store.ts";
import { MemorySessionStore } from "../../../../src/http/server/session_store.ts";
import {
  createHttpHandler,
  type HttpHandlerOptions,
} from "../../../../src/http/server/create_http_handler.ts";
import { InvalidOptionError } from "../../../../src/wire/errors.ts";
import { FakeServer, gate, legacyPost, rpc } from "./http_handler_helpers.ts";

interface RawEvent {
  id?: string;
  retry?: number;
  data: string;
}

/** Reads raw SSE events (id, retry, data) from a response body. */
class RawSse {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = "";

  constructor(response: Response) {
    this.#reader = response.body!.getReader();
  }

  async next(): Promise<RawEvent | undefined> {
    for (;;) {
      const at = this.#buffer.indexOf("\n\n");
      if (at >= 0) {
        const block = this.#buffer.slice(0, at).split("\n");
        this.#buffer = this.#buffer.slice(at + 2);
        if (block.every((line) => line.startsWith(":"))) continue;
        const event: RawEvent = { data: "" };
        const data: string[] = [];
        for (const line of block) {
          if (line.startsWith("id: ")) event.id = line.slice(4);
          else if (line.startsWith("retry: ")) event.retry = Number(line.slice(7));
          else if (line.startsWith("data: ")) data.push(line.slice(6));
        }
        event.data = data.join("\n");
        return event;
      }
      const { done, value } = await this.#reader.read();
      if (done) return undefined;
      this.#buffer += this.#decoder.decode(value, { stream: true });
    }
  }

  async rest(): Promise<RawEvent[]> {
    const events: RawEvent[] = [];
    for (let event = await this.next(); event; event = await this.next()) events.push(event);
    return events;
  }

  cancel(): Promise<void> {
    return this.#reader.cancel();
  }
}

const progress = (n: number) => ({
  jsonrpc: "2.0",
  method: "notifications/progress",
  params: { progressToken: "t", progress: n },
});

/** A server whose tool `steps` sends progress 1..count, waiting at `pauseAfter` for the test. */
function setup(options: HttpHandlerOptions = {}) {
  const server = new FakeServer(["2025-11-25"]);
  const pause = gate();
  const paused = gate();
  const closed = gate<boolean>();
  server.on("tools/call", async ({ params, context }) => {
    const args = params.arguments as { count: number; pauseAfter?: number; closeFirst?: boolean };
    if (args.closeFirst) closed.open(context.closeStream?.() ?? false);
    for (let n = 1; n <= args.count; n++) {
      await context.notify("notifications/progress", { progressToken: "t", progress: n });
      if (n === args.pauseAfter) {
        paused.open();
        await pause.promise;
      }
    }
    return { content: [{ type: "text", text: `sent ${args.count}` }] };
  });
  const handler = createHttpHandler(server, {
    keepAliveInterval: 0,
    sessions: true,
    resumability: true,
    ...options,
  });
  return { handler, pause, paused, closed };
}

async function session(handler: ReturnType<typeof createHttpHandler>): Promise<Record<string, string>> {
  const init = await handler(
    legacyPost(rpc(0, "initialize", { protocolVersion: "2025-11-25", capabilities: {} })),
  );
  const headers = {
    "Mcp-Session-Id": init.headers.get("mcp-session-id")!,
    "MCP-Protocol-Version": "2025-11-25",
  };
  await init.text();
  await handler(legacyPost(rpc(undefined, "notifications/initialized"), headers));
  return headers;
}

function resumeRequest(headers: Record<string, string>, lastEventId: string): Request {
  return new Request("http://127.0.0.1:3000/mcp", {
    method: "GET",
    headers: { ...headers, Accept: "text/event-stream", "Last-Event-ID": lastEventId },
  });
}

const dataOf = (events: RawEvent[]) => events.filter((e) => e.data !== "").map((e) => JSON.parse(e.data));

describe("resumable legacy SSE streams", () => {
  it("primes a POST stream (id, retry, empty data) and gives every event an id naming its stream", async () => {
    const { handler } = setup({ resumability: { retry: 250 } });
    const headers = await session(handler);
    const events = await new RawSse(
      await handler(legacyPost(rpc(1, "tools/call", { arguments: { count: 3 } }), headers)),
    )
      .rest();
    expect(events[0]).toEqual({ id: expect.any(String), retry: 250, data: "" });
    expect(events).toHaveLength(5);
    const streams = new Set(events.map((e) => e.id!.split("_")[0]));
    expect(streams.size).toBe(1);
    expect(events.map((e) => Number(e.id!.split("_")[1]))).toEqual([0, 1, 2, 3, 4]);
    expect(dataOf(events).at(-1)).toMatchObject({ id: 1, result: { content: [{ text: "sent 3" }] } });
  });

  it("replays on GET + Last-Event-ID every event after the cut, in order, once, then the live ones and the result", async () => {
    const { handler, pause, paused } = setup();
    const headers = await session(handler);
    const post = new RawSse(
      await handler(legacyPost(rpc(1, "tools/call", { arguments: { count: 6, pauseAfter: 4 } }), headers)),
    );
    const seen = [await post.next(), await post.next(), await post.next()]; // priming, 1, 2
    await post.cancel(); // the connection breaks; the tool goes on
    await paused.promise; // 3 and 4 went to the store only
    const resumed = new RawSse(await handler(resumeRequest(headers, seen[2]!.id!)));
    pause.open(); // 5, 6 and the result go live on the resumed connection
    const rest = await resumed.rest();
    expect(dataOf(rest)).toEqual([
      progress(3),
      progress(4),
      progress(5),
      progress(6),
      expect.objectContaining({ id: 1, result: expect.anything() }),
    ]);
    expect(new Set(rest.map((e) => e.id)).size).toBe(rest.length);
  });

  it("lets a handler end the connection early (closeStream): the POST stream ends after priming, the result comes on resume", async () => {
    const { handler, closed } = setup();
    const headers = await session(handler);
    const post = await new RawSse(
      await handler(legacyPost(rpc(1, "tools/call", { arguments: { count: 2, closeFirst: true } }), headers)),
    ).rest();
    expect(await closed.promise).toBe(true);
    expect(post[0]).toMatchObject({ retry: 1000, data: "" });
    expect(dataOf(post).some((m) => m.id === 1)).toBe(false);
    const resumed = await new RawSse(await handler(resumeRequest(headers, post.at(-1)!.id!))).rest();
    expect(dataOf(resumed).at(-1)).toMatchObject({ id: 1, result: { content: [{ text: "sent 2" }] } });
    // A resume after the end replays nothing more and ends.
    const again = await new RawSse(await handler(resumeRequest(headers, resumed.at(-1)!.id!))).rest();
    expect(dataOf(again)).toEqual([]);
  });

  it("refuses another session's Last-Event-ID and an unknown one with 400, replaying nothing", async () => {
    const { handler } = setup();
    const mine = await session(handler);
    const theirs = await session(handler);
    const events = await new RawSse(
      await handler(legacyPost(rpc(1, "tools/call", { arguments: { count: 2 } }), mine)),
    )
      .rest();
    for (const lastEventId of [events[0]!.id!, "garbage", "0123456789abcdef_3"]) {
      const response = await handler(resumeRequest(theirs, lastEventId));
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: { code: -32000, message: /cannot be resumed/ } });
    }
  });

  it("keeps the GET stream's notifications while its client is away and replays them on resume", async () => {
    const server: FakeServer & { trackSession?(s: unknown): () => void } = new FakeServer(["2025-11-25"]);
    let session: { notify?(method: string, params?: unknown): Promise<void> } | undefined;
    server.trackSession = (s) => {
      session = s as typeof session;
      return () => {};
    };
    const handler = createHttpHandler(server, { keepAliveInterval: 0, sessions: true, resumability: true });
    const headers = await (async () => {
      const init = await handler(legacyPost(rpc(0, "initialize", { protocolVersion: "2025-11-25" })));
      await init.text();
      return { "Mcp-Session-Id": init.headers.get("mcp-session-id")!, "MCP-Protocol-Version": "2025-11-25" };
    })();
    const get = new RawSse(
      await handler(
        new Request("http://127.0.0.1:3000/mcp", {
          method: "GET",
          headers: { ...headers, Accept: "text/event-stream" },
        }),
      ),
    );
    const priming = await get.next();
    await session!.notify!("notifications/tools/list_changed");
    const first = await get.next();
    await get.cancel();
    await session!.notify!("notifications/prompts/list_changed");
    const resumed = new RawSse(await handler(resumeRequest(headers, first!.id!)));
    const next = await resumed.next();
    expect(priming).toMatchObject({ data: "" });
    expect(JSON.parse(next!.data)).toMatchObject({ method: "notifications/prompts/list_changed" });
    await resumed.cancel();
  });

  it("resumes on another replica from a shared store: replays what is stored, ends with a retry hint, then the rest", async () => {
    const eventStore = new MemoryEventStore();
    const sessionStore = new MemorySessionStore();
    const shared = { resumability: { eventStore, retry: 40 }, sessionStore };
    const a = setup(shared);
    const b = setup(shared);
    const headers = await session(a.handler);
    const post = new RawSse(
      await a.handler(legacyPost(rpc(1, "tools/call", { arguments: { count: 4, pauseAfter: 2 } }), headers)),
    );
    const priming = await post.next();
    await a.paused.promise; // 1 and 2 are stored
    await post.cancel();
    // Replica b does not write this stream: it replays what the store has and ends the connection.
    const first = await new RawSse(await b.handler(resumeRequest(headers, priming!.id!))).rest();
    expect(dataOf(first)).toEqual([progress(1), progress(2)]);
    // Nothing new yet: an empty answer with the retry hint, no id (the client keeps its cursor).
    const idle = await new RawSse(await b.handler(resumeRequest(headers, first.at(-1)!.id!))).rest();
    expect(idle).toEqual([{ retry: 40, data: "" }]);
    a.pause.open();
    await a.handler.close(); // waits for the call to finish: its result is in the store
    const rest = await new RawSse(await b.handler(resumeRequest(headers, first.at(-1)!.id!))).rest();
    expect(dataOf(rest)).toEqual([
      progress(3),
      progress(4),
      expect.objectContaining({ id: 1, result: expect.anything() }),
    ]);
  });

  it("refuses resumability without sessions", () => {
    expect(() => createHttpHandler(new FakeServer(), { resumability: true })).toThrow(InvalidOptionError);
  });
});

describe("MemoryEventStore bounds", () => {
  const event = (seq: number, data = "x".repeat(100)) => ({ streamId: "s", seq, data });

  it("holds maxBytes, then evicts the oldest: a resume behind the eviction is expired", () => {
    const store = new MemoryEventStore({ maxBytes: 10 * (100 + 96) });
    for (let seq = 0; seq < 10; seq++) store.append("a", event(seq));
    expect(store.read("a", "s", 0)).toMatchObject({ kind: "events", events: { length: 9 } }); // not hit early
    store.append("a", event(10));
    store.append("a", event(11)); // 0 and 1 evicted
    expect(store.bytes).toBeLessThanOrEqual(store.maxBytes);
    expect(store.read("a", "s", 0)).toEqual({ kind: "expired" });
    expect(store.read("a", "s", 1)).toMatchObject({ kind: "events", events: { length: 10 } });
  });

  it("keeps events for maxAge, then drops them", async () => {
    const { FakeTimeProvider } = await import("../../../../testing/fake_time_provider.ts");
    const time = new FakeTimeProvider();
    const store = new MemoryEventStore({ maxAge: 1000, timeProvider: time });
    store.append("a", event(0));
    store.append("a", event(1));
    await time.advance(1000);
    expect(store.read("a", "s", 0)).toMatchObject({ kind: "events", events: { length: 1 } }); // not hit early
    await time.advance(1);
    expect(store.read("a", "s", 0).kind).not.toBe("events");
    expect(store.size).toBe(0);
  });

  it("answers another session's stream as unknown and refuses bad bounds", () => {
    const store = new MemoryEventStore();
    store.append("a", event(0));
    expect(store.read("b", "s", 0)).toEqual({ kind: "unknown" });
    expect(() => new MemoryEventStore({ maxBytes: 0 })).toThrow(InvalidOptionError);
    expect(() => new MemoryEventStore({ maxAge: -1 })).toThrow(InvalidOptionError);
  });
});
