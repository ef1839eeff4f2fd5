import { describe, expect, it } from "vitest";
import { CorsPolicy } from "../../../../src/http/server/cors_policy.ts";

function preflight(origin: string | undefined, method = "POST", requestHeaders?: string): Request {
  const headers: Record<string, string> = { "access-control-request-method": method };
  if (origin !== undefined) headers.origin = origin;
  if (requestHeaders !== undefined) headers["access-control-request-headers"] = requestHeaders;
  return new Request("http://127.0.0.1/mcp", { method: "OPTIONS", headers });
}

describe("CorsPolicy.preflight", () => {
  const cors = new CorsPolicy({ origins: ["https://app.example.com"] });

  it("allows every Mcp-* header, the MCP headers and Content-Type", () => {
    const requested =
      "content-type, mcp-protocol-version, mcp-method, mcp-name, mcp-param-region, Mcp-Param-X-Tenant, mcp-session-id, last-event-id, authorization";
    const response = cors.preflight(preflight("https://app.example.com", "POST", requested))!;
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    expect(response.headers.get("access-control-allow-headers")).toBe(
      requested.split(",").map((h) => h.trim()).join(", "),
    );
    expect(response.headers.get("access-control-allow-methods")).toBe("GET, POST, DELETE, OPTIONS");
    expect(response.headers.get("access-control-max-age")).toBe("600");
  });

  it("gives a refused preflight no allow headers", () => {
    const foreign = cors.preflight(preflight("https://evil.example"))!;
    expect(foreign.status).toBe(204);
    expect(foreign.headers.get("access-control-allow-origin")).toBeNull();
    expect(
      cors.preflight(preflight("https://app.example.com", "PUT"))!.headers.get("access-control-allow-origin"),
    ).toBeNull();
    expect(
      cors.preflight(preflight("https://app.example.com", "POST", "mcp-name, x-secret"))!.headers.get(
        "access-control-allow-origin",
      ),
    ).toBeNull();
  });

  it("allows extra headers given as options", () => {
    const extra = new CorsPolicy({ allowHeaders: ["X-Secret"] });
    expect(
      extra.preflight(preflight("https://any.example", "POST", "x-secret"))!.headers.get(
        "access-control-allow-headers",
      ),
    ).toBe("x-secret");
  });

  it("leaves requests that are not preflights to the handler", () => {
    expect(cors.preflight(new Request("http://127.0.0.1/mcp", { method: "OPTIONS" }))).toBeUndefined();
    expect(cors.preflight(new Request("http://127.0.0.1/mcp", { method: "POST", body: "{}" })))
      .toBeUndefined();
  });

  it("answers any origin with * by default, and echoes it with credentials", () => {
    expect(
      new CorsPolicy().preflight(preflight("https://x.example"))!.headers.get("access-control-allow-origin"),
    ).toBe("*");
    const credentialed = new CorsPolicy({ credentials: true }).preflight(preflight("https://x.example"))!;
    expect(credentialed.headers.get("access-control-allow-origin")).toBe("https://x.example");
    expect(credentialed.headers.get("access-control-allow-credentials")).toBe("true");
  });
});

describe("CorsPolicy.apply", () => {
  const cors = new CorsPolicy({ origins: ["https://app.example.com"] });
  const request = (origin?: string) =>
    new Request("http://127.0.0.1/mcp", { method: "POST", headers: origin ? { origin } : {} });

  it("exposes MCP-Protocol-Version, Mcp-Session-Id, Last-Event-ID and every Mcp-* header of the response", async () => {
    const response = new Response('{"ok":true}', {
      status: 200,
      headers: { "Content-Type": "application/json", "Mcp-Session-Id": "abc", "Mcp-Custom-Thing": "1" },
    });
    const decorated = cors.apply(request("https://app.example.com"), response);
    expect(decorated.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    const exposed = decorated.headers.get("access-control-expose-headers")!.toLowerCase().split(", ");
    for (const name of ["mcp-protocol-version", "mcp-session-id", "last-event-id", "mcp-custom-thing"]) {
      expect(exposed).toContain(name);
    }
    expect(decorated.headers.get("vary")).toContain("Origin");
    expect(decorated.status).toBe(200);
    expect(await decorated.json()).toEqual({ ok: true });
  });

  it("passes a streaming body through unread", async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull: (c) => void (pulled++, c.enqueue(new Uint8Array([0x3a, 0x0a])), c.close()),
    }, { highWaterMark: 0 });
    const decorated = cors.apply(request("https://app.example.com"), new Response(body));
    expect(pulled).toBe(0);
    expect(await decorated.text()).toBe(":\n");
  });

  it("leaves responses to requests without Origin or from refused origins unchanged", () => {
    const response = new Response(null, { status: 202 });
    expect(cors.apply(request(), response)).toBe(response);
    expect(cors.apply(request("https://evil.example"), response)).toBe(response);
  });
});
