/**
 * The defaults of docs/http.md's option table, each pinned and held both ways (issue 25 item 22):
 * changing the legacy session idle timeout (300 000) or the stream cap (1 000) used to break no test.
 * Each bound is shown holding (one more is refused, or the session ends at the bound) and not hit
 * early (everything up to the bound is served, the session lives 1 ms before it).
 */
import { describe, expect, it } from "vitest";
import {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_IDLE_TIMEOUT,
} from "../../../../src/http/server/legacy/legacy_session_table.ts";
import { createHttpHandler, DEFAULT_MAX_STREAMS } from "../../../../src/http/server/create_http_handler.ts";
import { DEFAULT_MAX_BODY_BYTES } from "../../../../src/http/server/read_json_body.ts";
import { FakeTimeProvider, flushMicrotasks } from "../../../../testing/fake_time_provider.ts";
import { aborted, FakeServer, legacyPost, modernRequest, rpc } from "./http_handler_helpers.ts";

const INIT = rpc(0, "initialize", {
  protocolVersion: "2025-11-25",
  capabilities: {},
  clientInfo: { name: "c", version: "1" },
});

describe("createHttpHandler defaults, held both ways", () => {
  it("sessions.idleTimeout is 300 000: a session lives at 299 999 ms of quiet and ends at 300 000", async () => {
    expect(DEFAULT_SESSION_IDLE_TIMEOUT).toBe(300_000);
    const time = new FakeTimeProvider();
    const server = new FakeServer();
    const handler = createHttpHandler(server, { keepAliveInterval: 0, sessions: true, timeProvider: time });
    expect((await handler(legacyPost(INIT))).status).toBe(200);
    await time.advance(299_999);
    expect(handler.sessionCount).toBe(1);
    await time.advance(1);
    expect(handler.sessionCount).toBe(0);
    await handler.close();
  });

  it("sessions.maxSessions is 1 000: the 1 000th initialize is served, the 1 001st gets 429", async () => {
    expect(DEFAULT_MAX_SESSIONS).toBe(1_000);
    const handler = createHttpHandler(new FakeServer(), { keepAliveInterval: 0, sessions: true });
    for (let i = 0; i < 1_000; i++) expect((await handler(legacyPost(INIT))).status).toBe(200);
    expect(handler.sessionCount).toBe(1_000);
    expect((await handler(legacyPost(INIT))).status).toBe(429);
    await handler.close();
  });

  it("maxStreams is 1 000: the 1 000th listen stream opens, the 1 001st gets 429", async () => {
    expect(DEFAULT_MAX_STREAMS).toBe(1_000);
    const server = new FakeServer();
    server.on("subscriptions/listen", async ({ context }) => {
      await context.notify("notifications/subscriptions/acknowledged", {
        _meta: { "io.modelcontextprotocol/subscriptionId": 1 },
        notifications: {},
      });
      await aborted(context.signal);
      return { _meta: { "io.modelcontextprotocol/subscriptionId": 1 } };
    });
    const handler = createHttpHandler(server, { keepAliveInterval: 0, shutdownTimeout: 0 });
    const open: Response[] = [];
    for (let i = 0; i < 1_000; i++) {
      const response = await handler(modernRequest(i, "subscriptions/listen", { notifications: {} }));
      expect(response.status).toBe(200);
      open.push(response);
    }
    expect(handler.streamCount).toBe(1_000);
    expect((await handler(modernRequest(1_000, "subscriptions/listen", { notifications: {} }))).status).toBe(
      429,
    );
    await open[0]!.body!.cancel();
    await flushMicrotasks();
    expect((await handler(modernRequest(1_001, "subscriptions/listen", { notifications: {} }))).status).toBe(
      200,
    );
    await handler.close();
  });

  it("maxBodyBytes is 4 MiB: a body of exactly 4 MiB is read, one byte more gets 413", async () => {
    expect(DEFAULT_MAX_BODY_BYTES).toBe(4 * 1024 * 1024);
    const server = new FakeServer();
    server.on("tools/list", () => ({ tools: [] }));
    const handler = createHttpHandler(server, { keepAliveInterval: 0 });
    const sized = async (bytes: number) => {
      const base = modernRequest(1, "tools/list");
      const text = await base.text();
      const body = text.slice(0, -1) + " ".repeat(bytes - text.length) + "}";
      return handler(new Request(base.url, { method: "POST", headers: base.headers, body }));
    };
    expect((await sized(DEFAULT_MAX_BODY_BYTES)).status).toBe(200);
    expect((await sized(DEFAULT_MAX_BODY_BYTES + 1)).status).toBe(413);
  });
});
