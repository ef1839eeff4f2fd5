/** serve()'s liveness and readiness probes (node:http): readiness turns 503 the moment close() starts. */
import { describe, expect, it } from "vitest";
import { serve } from "../../../adapters/node/_serve.ts";
import { HealthChecks } from "../../../adapters/_http/health_checks.ts";

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe("serve() health probes", () => {
  it("answers GET and HEAD on /livez and /readyz itself; everything else goes to the handler", async () => {
    const seen: string[] = [];
    const server = await serve((request) => {
      seen.push(`${request.method} ${new URL(request.url).pathname}`);
      return new Response("handler");
    }, { idleCloseDelay: 0 });
    const at = (path: string, init?: RequestInit) => fetch(new URL(path, server.url), init);
    expect((await at("/livez")).status).toBe(200);
    const ready = await at("/readyz?verbose=1");
    expect([ready.status, await ready.text(), ready.headers.get("cache-control")]).toEqual([
      200,
      "ready\n",
      "no-store",
    ]);
    expect((await at("/readyz", { method: "HEAD" })).status).toBe(200);
    expect(await (await at("/readyz", { method: "POST", body: "x" })).text()).toBe("handler");
    expect(await (await at("/mcp")).text()).toBe("handler");
    expect(seen).toEqual(["POST /readyz", "GET /mcp"]);
    await server.close();
  });

  it("turns readiness 503 at close() while liveness and requests in flight still answer", async () => {
    const held = gate();
    const server = await serve(async (request) => {
      if (new URL(request.url).pathname === "/slow") await held.opened;
      return new Response("done");
    }, { idleCloseDelay: 0, readinessGrace: 3_000 });
    const at = (path: string) => fetch(new URL(path, server.url));
    const slow = at("/slow");
    expect((await at("/readyz")).status).toBe(200);
    const closing = server.close();
    // Within the grace the listener is still open: probes and new requests are answered.
    const draining = await at("/readyz");
    expect([draining.status, await draining.text()]).toEqual([503, "draining\n"]);
    expect((await at("/livez")).status).toBe(200);
    expect(await (await at("/other")).text()).toBe("done");
    held.open();
    expect(await (await slow).text()).toBe("done");
    await closing;
    await expect(at("/readyz")).rejects.toThrow(); // the listener is gone after the grace and the drain
  });

  it("turns the probes off with null and refuses bad options with typed errors", async () => {
    const server = await serve(() => new Response("handler"), {
      idleCloseDelay: 0,
      livenessPath: null,
      readinessPath: "/health/ready",
    });
    expect(await (await fetch(new URL("/livez", server.url))).text()).toBe("handler");
    expect((await fetch(new URL("/health/ready", server.url))).status).toBe(200);
    await server.close();
    await expect(serve(() => new Response(), { readinessPath: "ready" })).rejects.toThrow(TypeError);
    await expect(serve(() => new Response(), { readinessGrace: -1 })).rejects.toThrow(RangeError);
  });

  it("reads probe paths from a full URL too (the Deno and Bun handlers)", async () => {
    const health = new HealthChecks("/livez", "/readyz");
    const handler = health.wrap((_request: Request) => new Response("handler"));
    expect((await handler(new Request("http://h/readyz"))).status).toBe(200);
    health.ready = false;
    expect((await handler(new Request("http://h/readyz"))).status).toBe(503);
    expect(await (await handler(new Request("http://h/x"))).text()).toBe("handler");
  });
});
