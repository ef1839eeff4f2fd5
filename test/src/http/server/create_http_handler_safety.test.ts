import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../../../../src/http/server/create_http_handler.ts";
import { FakeServer, json, modernRequest, rpc, URL_ } from "./http_handler_helpers.ts";

function setup(options: Parameters<typeof createHttpHandler>[1] = {}) {
  const server = new FakeServer();
  server.on("tools/list", () => ({ tools: [] }));
  return createHttpHandler(server, { keepAliveInterval: 0, ...options });
}

/** A streamed body of `total` bytes of JSON-looking text, counting the bytes pulled. */
function streamedBody(total: number, chunk = 1024) {
  const stats = { pulled: 0, cancelled: false };
  const prefix = new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"');
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (stats.pulled === 0) {
        stats.pulled += prefix.byteLength;
        controller.enqueue(prefix);
        return;
      }
      if (stats.pulled >= total) return controller.close();
      stats.pulled += chunk;
      controller.enqueue(new Uint8Array(chunk).fill(0x61));
    },
    cancel() {
      stats.cancelled = true;
    },
  });
  return { body, stats };
}

describe("createHttpHandler: body cap", () => {
  it("answers 413 at once, reading nothing, when Content-Length declares more than maxBodyBytes", async () => {
    const handler = setup({ maxBodyBytes: 1000 });
    const { body, stats } = streamedBody(1_000_000);
    const response = await handler(
      new Request(
        URL_,
        {
          method: "POST",
          body,
          headers: { "Content-Type": "application/json", "Content-Length": "1000000" },
          duplex: "half",
        } as RequestInit,
      ),
    );
    expect(response.status).toBe(413);
    expect(await json(response)).toMatchObject({ error: { code: -32000 } });
    expect(stats.pulled).toBeLessThan(10_000);
  });

  it("answers 413 for a body that streams past the cap whatever Content-Length claims, without reading it all", async () => {
    const handler = setup({ maxBodyBytes: 4096 });
    const { body, stats } = streamedBody(10_000_000);
    const response = await handler(
      new Request(
        URL_,
        {
          method: "POST",
          body,
          headers: { "Content-Type": "application/json", "Content-Length": "100" },
          duplex: "half",
        } as RequestInit,
      ),
    );
    expect(response.status).toBe(413);
    expect(stats.pulled).toBeLessThan(64 * 1024);
    expect(stats.cancelled).toBe(true);
  });

  it("takes a body of exactly maxBodyBytes", async () => {
    const text = JSON.stringify(rpc(1, "tools/list", { pad: "" }));
    const body = JSON.stringify(rpc(1, "tools/list", { pad: "a".repeat(1000 - text.length) }));
    expect(body.length).toBe(1000);
    const handler = setup({ maxBodyBytes: 1000 });
    const response = await handler(
      new Request(URL_, { method: "POST", body, headers: { "Content-Type": "application/json" } }),
    );
    expect(response.status).toBe(200);
  });
});

describe("createHttpHandler: broken uploads", () => {
  it("answers 400 and reports when the body stream fails mid-upload", async () => {
    const reports: Error[] = [];
    const handler = setup({ onReport: (error) => reports.push(error) });
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"jsonrpc":'));
        controller.error(new Error("Connection reset"));
      },
    });
    const response = await handler(
      new Request(
        URL_,
        {
          method: "POST",
          body,
          headers: { "Content-Type": "application/json" },
          duplex: "half",
        } as RequestInit,
      ),
    );
    expect(response.status).toBe(400);
    expect(reports.map((e) => e.message)).toEqual(["Connection reset"]);
  });
});

describe("createHttpHandler: Origin and Host", () => {
  it("refuses a rebinding Host or a foreign Origin with 403 and no id, on loopback by default", async () => {
    const handler = setup();
    const evilHost = modernRequest(1, "tools/list", {}, { headers: { Host: "evil.example.com" } });
    const hostResponse = await handler(new Request("http://evil.example.com/mcp", evilHost));
    expect(hostResponse.status).toBe(403);
    const body = await json(hostResponse);
    expect(body).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 } });
    expect("id" in body).toBe(false);
    const origin = await handler(
      modernRequest(1, "tools/list", {}, { headers: { Origin: "http://evil.example.com" } }),
    );
    expect(origin.status).toBe(403);
  });

  it("accepts the server's own loopback Host and Origin", async () => {
    const handler = setup();
    const response = await handler(
      modernRequest(1, "tools/list", {}, { headers: { Origin: "http://127.0.0.1:3000" } }),
    );
    expect(response.status).toBe(200);
  });

  it("accepts allow-listed hosts and origins", async () => {
    const handler = setup({ allowedHosts: ["mcp.example.com"], allowedOrigins: ["https://app.example.com"] });
    const request = modernRequest(1, "tools/list", {}, { headers: { Origin: "https://app.example.com" } });
    const response = await handler(new Request("http://mcp.example.com/mcp", request));
    expect(response.status).toBe(200);
  });
});

describe("createHttpHandler: CORS", () => {
  it("answers a preflight allowing Mcp-* headers, and exposes Mcp-* response headers", async () => {
    const handler = setup({ cors: { origins: ["http://localhost:5173"] }, sessions: true });
    const preflight = await handler(
      new Request(URL_, {
        method: "OPTIONS",
        headers: {
          Origin: "http://localhost:5173",
          "Access-Control-Request-Method": "POST",
          "Access-Control-Request-Headers":
            "content-type, mcp-protocol-version, mcp-method, mcp-param-region",
        },
      }),
    );
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
    expect(preflight.headers.get("access-control-allow-headers")).toContain("mcp-param-region");
    const init = await handler(
      new Request(URL_, {
        method: "POST",
        body: JSON.stringify(rpc(0, "initialize", { protocolVersion: "2025-11-25" })),
        headers: { "Content-Type": "application/json", Origin: "http://localhost:5173" },
      }),
    );
    expect(init.status).toBe(200);
    expect(init.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
    expect(init.headers.get("access-control-expose-headers")?.toLowerCase()).toContain("mcp-session-id");
  });

  it("answers OPTIONS with 405 when CORS is off", async () => {
    const handler = setup();
    expect((await handler(new Request(URL_, { method: "OPTIONS" }))).status).toBe(405);
  });
});

describe("createHttpHandler: path", () => {
  it("serves only its path when one is given", async () => {
    const handler = setup({ path: "/mcp" });
    expect((await handler(modernRequest(1, "tools/list"))).status).toBe(200);
    const elsewhere = await handler(
      new Request("http://127.0.0.1:3000/other", modernRequest(1, "tools/list")),
    );
    expect(elsewhere.status).toBe(404);
    expect(() => setup({ path: "mcp" })).toThrow("Option path");
  });
});
