import { createHttpHandler } from "../../../../src/http/server/create_http_handler.ts";
import { FakeServer } from "./http_handler_helpers.ts";
import { describe, expect, it } from "vitest";
import { isLoopbackHostname, OriginGuard } from "../../../../src/http/server/origin_guard.ts";

function req(host: string | undefined, origin?: string, url = "http://127.0.0.1:3000/mcp"): Request {
  const headers: Record<string, string> = {};
  if (host !== undefined) headers.host = host;
  if (origin !== undefined) headers.origin = origin;
  return new Request(url, { method: "POST", headers });
}

describe("isLoopbackHostname", () => {
  it("knows localhost, 127.0.0.0/8 and ::1", () => {
    for (const name of ["localhost", "LOCALHOST", "localhost.", "127.0.0.1", "127.255.0.9", "::1", "[::1]"]) {
      expect(isLoopbackHostname(name), name).toBe(true);
    }
    for (
      const name of [
        "0.0.0.0",
        "128.0.0.1",
        "127.0.0.256",
        "localhost.evil.com",
        "evil-localhost",
        "::",
        "10.0.0.1",
        "127.0.0.1.evil.com",
      ]
    ) {
      expect(isLoopbackHostname(name), name).toBe(false);
    }
  });
});

describe("OriginGuard bound to loopback", () => {
  const guard = new OriginGuard({ bindAddress: "127.0.0.1" });

  it("runs in loopback mode for every loopback bind address, and not for 0.0.0.0", () => {
    expect(guard.loopback).toBe(true);
    expect(new OriginGuard({ bindAddress: "::1" }).loopback).toBe(true);
    expect(new OriginGuard({ bindAddress: "[::1]" }).loopback).toBe(true);
    expect(new OriginGuard({ bindAddress: "localhost" }).loopback).toBe(true);
    expect(new OriginGuard({ bindAddress: "0.0.0.0", allowedHosts: ["mcp.example.com"] }).loopback).toBe(
      false,
    );
    expect(new OriginGuard().loopback).toBe(false);
  });

  it("accepts loopback Hosts with or without a port, and no Origin", () => {
    for (const host of ["localhost", "localhost:3000", "127.0.0.1:3000", "[::1]:3000", "[::1]"]) {
      expect(guard.check(req(host)), host).toBeUndefined();
    }
  });

  it("accepts loopback Origins", () => {
    for (const origin of ["http://localhost:5173", "https://127.0.0.1", "http://[::1]:8080"]) {
      expect(guard.check(req("localhost:3000", origin)), origin).toBeUndefined();
    }
  });

  it("refuses a rebinding request: a foreign Host with its own Origin", () => {
    const reason = guard.check(req("evil.example:3000", "http://evil.example:3000"));
    expect(reason).toContain("evil.example:3000");
    expect(reason).toContain("Host");
  });

  it("refuses a foreign Origin on a loopback Host", () => {
    expect(guard.check(req("localhost:3000", "http://evil.example"))).toContain(
      'Origin "http://evil.example"',
    );
    expect(guard.check(req("localhost:3000", "null"))).toContain("null");
    expect(guard.check(req("localhost:3000", "file://"))).toBeDefined();
  });

  it("refuses a Host that is not a host", () => {
    expect(guard.check(req("localhost/evil"))).toContain("not a valid host");
    expect(guard.check(req("evil@localhost"))).toContain("not a valid host");
  });

  it("falls back to the URL's host when there is no Host header", () => {
    expect(guard.check(req(undefined, undefined, "http://localhost:3000/mcp"))).toBeUndefined();
    expect(guard.check(req(undefined, undefined, "http://evil.example/mcp"))).toBeDefined();
  });

  it("answers a refused request with 403 and a JSON-RPC error without id, and lets others through", async () => {
    const response = guard.refuse(req("evil.example", "http://evil.example"));
    expect(response?.status).toBe(403);
    const body = await response!.json();
    expect(body.jsonrpc).toBe("2.0");
    expect("id" in body).toBe(false);
    expect(body.error.message).toContain("evil.example");
    expect(guard.refuse(req("localhost:3000"))).toBeUndefined();
  });

  it("accepts allow-listed Hosts (any port, or exact port) and Origins", () => {
    const listed = new OriginGuard({
      bindAddress: "127.0.0.1",
      allowedHosts: ["mcp.internal", "proxy.internal:8443"],
      allowedOrigins: ["https://app.example.com"],
    });
    expect(listed.check(req("mcp.internal:3000"))).toBeUndefined();
    expect(listed.check(req("MCP.internal"))).toBeUndefined();
    expect(listed.check(req("proxy.internal:8443"))).toBeUndefined();
    expect(listed.check(req("proxy.internal:9000"))).toBeDefined();
    expect(listed.check(req("localhost", "https://app.example.com"))).toBeUndefined();
    expect(listed.check(req("localhost", "https://APP.example.com:443"))).toBeUndefined();
    expect(listed.check(req("localhost", "https://app.example.com:8443"))).toBeDefined();
    expect(listed.check(req("localhost", "http://app.example.com"))).toBeDefined();
  });

  it("accepts any Origin with allowedOrigins '*', but still checks Host", () => {
    const any = new OriginGuard({ bindAddress: "127.0.0.1", allowedOrigins: "*" });
    expect(any.check(req("localhost", "https://anything.example"))).toBeUndefined();
    expect(any.check(req("evil.example", "https://anything.example"))).toBeDefined();
  });

  it("accepts the opaque origin only when 'null' is listed", () => {
    expect(
      new OriginGuard({ bindAddress: "127.0.0.1", allowedOrigins: ["null"] }).check(req("localhost", "null")),
    ).toBeUndefined();
  });
});

describe("OriginGuard not bound to loopback", () => {
  const guard = new OriginGuard();

  // Issue 25 item 11: before, bindAddress 0.0.0.0 without allowedHosts passed any Origin equal to the
  // Host, exactly what a DNS-rebinding page sends.
  it("refuses to be built for a non-loopback bindAddress without allowedHosts, naming the fix", () => {
    for (const bindAddress of ["0.0.0.0", "192.168.1.5", "::", "mcp.example.com"]) {
      expect(() => new OriginGuard({ bindAddress }), bindAddress).toThrow(
        /not a loopback address: give allowedHosts/,
      );
      expect(() => new OriginGuard({ bindAddress, allowedHosts: [] }), bindAddress).toThrow(/allowedHosts/);
    }
    expect(() => createHttpHandler(new FakeServer(), { bindAddress: "0.0.0.0" })).toThrow(/allowedHosts/);
    expect(() =>
      createHttpHandler(new FakeServer(), { bindAddress: "0.0.0.0", allowedHosts: ["mcp.example.com"] })
    )
      .not.toThrow();
    const listed = new OriginGuard({ bindAddress: "0.0.0.0", allowedHosts: ["mcp.example.com"] });
    expect(listed.check(req("mcp.example.com", "https://mcp.example.com"))).toBeUndefined();
    expect(listed.check(req("rebound.evil.example", "http://rebound.evil.example"))).toContain("not allowed");
  });

  it("does not check Host, and accepts requests without Origin", () => {
    expect(guard.check(req("mcp.example.com"))).toBeUndefined();
    expect(guard.check(req("10.1.2.3:8080"))).toBeUndefined();
  });

  it("accepts the request's own origin and refuses other origins", () => {
    expect(guard.check(req("mcp.example.com", "https://mcp.example.com"))).toBeUndefined();
    expect(guard.check(req("mcp.example.com:8080", "http://mcp.example.com:8080"))).toBeUndefined();
    expect(guard.check(req("mcp.example.com", "https://evil.example"))).toContain("evil.example");
  });

  it("checks Host against allowedHosts when given", () => {
    const listed = new OriginGuard({ allowedHosts: ["mcp.example.com"] });
    expect(listed.check(req("mcp.example.com"))).toBeUndefined();
    expect(listed.check(req("other.example.com"))).toContain("other.example.com");
    expect(listed.check(req("localhost"))).toBeDefined();
  });
});

describe("OriginGuard remembers the outcome of recent Host/Origin pairs", () => {
  it("gives the same answer for a pair seen before, refused or passed, and tells pairs apart", () => {
    const guard = new OriginGuard({ bindAddress: "127.0.0.1" });
    for (let i = 0; i < 3; i++) {
      expect(guard.check(req("127.0.0.1:3000"))).toBeUndefined();
      expect(guard.check(req("127.0.0.1:3000", "http://evil.example"))).toContain("evil.example");
      expect(guard.check(req("127.0.0.1:3000", "http://localhost:5173"))).toBeUndefined();
      expect(guard.check(req("evil.example"))).toContain("not a loopback host");
    }
  });

  it("still decides every pair right after more pairs than it remembers", () => {
    const guard = new OriginGuard({ bindAddress: "127.0.0.1" });
    for (let i = 0; i < 600; i++) {
      expect(guard.check(req(`127.0.0.1:${1000 + i}`, `http://evil${i}.example`))).toContain(
        `evil${i}.example`,
      );
    }
    expect(guard.check(req("127.0.0.1:1000", "http://evil0.example"))).toContain("evil0.example");
    expect(guard.check(req("127.0.0.1:1000"))).toBeUndefined();
  });
});
