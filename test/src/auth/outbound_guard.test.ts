/**
 * OAuth discovery against SSRF (issue 25 item 7): every URL a server chooses is checked before it is
 * fetched. The fetch is injected and records what it is asked for; no traffic leaves this process.
 * Before the fix the client fetched every URL below, and a status from the internal target came
 * back in the error.
 */
import { describe, expect, it } from "vitest";
import { AuthError, withOAuth } from "../../../src/auth/mod.ts";
import { isPrivateAddress, OutboundGuard } from "../../../src/auth/outbound_guard.ts";

const MCP = "https://mcp.example/mcp";

/** A fetch that records each URL and answers from `routes` (by full URL), else 404. */
function recorder(routes: Record<string, (init?: RequestInit) => Response>) {
  const asked: string[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = input instanceof Request ? input.url : String(input);
    asked.push(url);
    const route = routes[url];
    return route ? route(init) : new Response("nothing here", { status: 404 });
  };
  return { asked, fetch };
}

function challenge(resourceMetadata: string): Response {
  return new Response(null, {
    status: 401,
    headers: { "www-authenticate": `Bearer resource_metadata="${resourceMetadata}"` },
  });
}

async function rejectionOf(promise: Promise<unknown>): Promise<AuthError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(AuthError);
  return error as AuthError;
}

const client = (fetch: ReturnType<typeof recorder>["fetch"], outbound = {}) =>
  withOAuth(fetch, {
    redirectUri: "http://127.0.0.1:7777/callback",
    redirectTo: () => undefined,
    outbound,
  });

describe("OAuth discovery fetches only allowed URLs", () => {
  it("refuses a resource_metadata URL on a link-local address, and over plain HTTP, without fetching it", async () => {
    for (
      const target of [
        "http://169.254.169.254/latest/meta-data",
        "https://169.254.169.254/x",
        "http://mcp2.example/.well-known/x",
      ]
    ) {
      const { asked, fetch } = recorder({ [MCP]: () => challenge(target) });
      const error = await rejectionOf(client(fetch)(MCP, { method: "POST", body: "{}" }));
      expect(error.code).toBe("outbound_refused");
      expect(asked).toEqual([MCP]);
    }
  });

  it("refuses authorization servers on private addresses unless allowPrivateNetworks", async () => {
    const metadataUrl = "https://mcp.example/.well-known/oauth-protected-resource/mcp";
    const routes = {
      [MCP]: () => challenge(metadataUrl),
      [metadataUrl]: () => Response.json({ resource: MCP, authorization_servers: ["https://10.0.0.7"] }),
    };
    const refused = recorder(routes);
    expect((await rejectionOf(client(refused.fetch)(MCP, { method: "POST" }))).code).toBe("outbound_refused");
    expect(refused.asked.some((url) => url.includes("10.0.0.7"))).toBe(false);
    const allowed = recorder(routes);
    await client(allowed.fetch, { allowPrivateNetworks: true })(MCP, { method: "POST" }).catch(() => {});
    expect(allowed.asked.some((url) => url.startsWith("https://10.0.0.7/"))).toBe(true);
  });

  it("reaches the MCP server's own origin whatever its address (the user chose it)", async () => {
    const server = "http://10.1.2.3:8080/mcp";
    const { asked, fetch } = recorder({ [server]: () => challenge("http://10.1.2.3:8080/.well-known/prm") });
    await client(fetch)(server, { method: "POST" }).catch(() => {});
    expect(asked).toContain("http://10.1.2.3:8080/.well-known/prm");
  });
});

describe("OutboundGuard", () => {
  const never = () => false;

  it("follows at most maxRedirects GET redirects, checking every hop", async () => {
    const hop = (n: number) => `https://as.example/${n}`;
    const routes: Record<string, () => Response> = {};
    for (let n = 0; n < 5; n++) {
      routes[hop(n)] = () => new Response(null, { status: 302, headers: { location: hop(n + 1) } });
    }
    routes[hop(5)] = () => Response.json({ ok: true });
    const within = recorder(routes);
    expect(await (await new OutboundGuard(within.fetch, never, { maxRedirects: 5 }).fetch(hop(0))).json())
      .toEqual({ ok: true });
    const beyond = recorder(routes);
    const error = await rejectionOf(new OutboundGuard(beyond.fetch, never).fetch(hop(0)));
    expect(error.message).toMatch(/maxRedirects \(3\)/);
    expect(beyond.asked).toEqual([hop(0), hop(1), hop(2), hop(3)]);
    const toPrivate = recorder({
      [hop(0)]: () => new Response(null, { status: 307, headers: { location: "http://192.168.0.1/admin" } }),
    });
    expect((await rejectionOf(new OutboundGuard(toPrivate.fetch, never).fetch(hop(0)))).code).toBe(
      "outbound_refused",
    );
    expect(toPrivate.asked).toEqual([hop(0)]);
  });

  it("never follows a redirect of a POST", async () => {
    const { asked, fetch } = recorder({
      "https://as.example/token": () =>
        new Response(null, { status: 307, headers: { location: "https://as.example/x" } }),
    });
    const response = await new OutboundGuard(fetch, never).fetch("https://as.example/token", {
      method: "POST",
    });
    expect(response.status).toBe(307);
    expect(asked).toEqual(["https://as.example/token"]);
  });

  it("caps bodies at maxResponseBytes (default 1 MiB), a body of exactly the cap passes", async () => {
    const body = (n: number) => () => new Response(new Uint8Array(n).fill(0x20));
    const { fetch } = recorder({
      "https://as.example/big": body(1024 * 1024 + 1),
      "https://as.example/fits": body(1024 * 1024),
    });
    const guard = new OutboundGuard(fetch, never);
    expect((await (await guard.fetch("https://as.example/fits")).arrayBuffer()).byteLength).toBe(1024 * 1024);
    await expect((await guard.fetch("https://as.example/big")).arrayBuffer()).rejects.toThrow(
      /maxResponseBytes/,
    );
    const small = new OutboundGuard(fetch, never, { maxResponseBytes: 10 });
    await expect((await small.fetch("https://as.example/fits")).text()).rejects.toThrow(
      /maxResponseBytes \(10\)/,
    );
  });

  it("classifies addresses: private, link-local, CGNAT, ULA, mapped; public and names are not", () => {
    for (
      const host of [
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.169.254",
        "100.64.0.1",
        "0.0.0.0",
        "[fd00::1]",
        "[fe80::1]",
        "[::ffff:10.0.0.1]",
        "[::ffff:a9fe:a9fe]",
        "[::]",
      ]
    ) {
      expect(isPrivateAddress(host), host).toBe(true);
    }
    for (const host of ["8.8.8.8", "172.32.0.1", "[2001:db8::1]", "as.example"]) {
      expect(isPrivateAddress(host), host).toBe(false);
    }
    // The URL parser normalizes other spellings of an address first.
    expect(isPrivateAddress(new URL("http://0xa9fea9fe/").hostname)).toBe(true);
    expect(isPrivateAddress(new URL("http://[::ffff:169.254.169.254]/").hostname)).toBe(true);
  });
});
