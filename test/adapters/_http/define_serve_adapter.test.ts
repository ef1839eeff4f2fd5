/**
 * `defineServeAdapter` on a fake runtime (no socket): the probes, the close sequence and its order,
 * and the Deno and Bun `serve` taking their runtime as an option, as `spawnProcess` does.
 */
import { describe, expect, it } from "vitest";
import {
  defineServeAdapter,
  type ListeningServer,
  type ServeRuntime,
} from "../../../adapters/_http/define_serve_adapter.ts";
import type { FetchHandler } from "../../../adapters/_http/serve_options.ts";
import { type BunLike, serve as bunServe } from "../../../adapters/bun/mod.ts";
import { type DenoLike, serve as denoServe } from "../../../adapters/deno/mod.ts";
import { ClosedError } from "../../../src/wire/errors.ts";

type Fetch = (request: Request) => Response | Promise<Response>;

/** A runtime that records what it is asked, and hands the wrapped handler to the test as `fetch`. */
function fakeRuntime(log: string[], server: Partial<ListeningServer> = {}) {
  const state: { fetch?: Fetch; address?: { port: number; hostname: string } } = {};
  const runtime: ServeRuntime = {
    listen(address, fetch) {
      state.address = address;
      state.fetch = fetch;
      return {
        port: 4321,
        stopAccepting: () => void log.push("stopAccepting"),
        closeConnections: () => void log.push("closeConnections"),
        ...server,
      };
    },
  };
  return { runtime, state };
}

/** A handler whose one response body the test ends, logging drain() and close(). */
function streamingHandler(log: string[]) {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const handler: FetchHandler = Object.assign(
    () =>
      new Response(new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) }), {
        headers: { "content-type": "text/event-stream" },
      }),
    {
      drain: () => void log.push("drain"),
      close: () => {
        log.push("handler.close");
        return Promise.resolve();
      },
    },
  );
  return { handler, end: () => controller.close() };
}

/** Settles pending promise jobs (no timers involved). */
const turns = async (n = 20): Promise<void> => {
  for (let i = 0; i < n; i++) await Promise.resolve();
};

/** Lets close() pass `acceptPending` (event-loop turns in which no request arrives), then settles. */
const acceptTurns = async (): Promise<void> => {
  for (let i = 0; i < 4; i++) await new Promise((resolve) => setTimeout(resolve, 0));
  await turns();
};

describe("defineServeAdapter", () => {
  it("listens at the defaults and answers the probes in front of the handler", async () => {
    const log: string[] = [];
    const { runtime, state } = fakeRuntime(log);
    const server = await defineServeAdapter(runtime).serve(() => new Response("hi"));
    expect(state.address).toEqual({ port: 0, hostname: "127.0.0.1" });
    expect(server.url.href).toBe("http://127.0.0.1:4321/");
    expect((await state.fetch!(new Request("http://x/livez"))).status).toBe(200);
    expect((await state.fetch!(new Request("http://x/readyz"))).status).toBe(200);
    expect(await (await state.fetch!(new Request("http://x/mcp"))).text()).toBe("hi");
    await server.close();
  });

  it("close(): readiness 503 at once, stop accepting, drain, wait for the request in flight, end connections, close the handler", async () => {
    const log: string[] = [];
    const { runtime, state } = fakeRuntime(log);
    const { handler, end } = streamingHandler(log);
    const server = await defineServeAdapter(runtime).serve(handler);
    const response = await state.fetch!(new Request("http://x/mcp", { method: "POST" }));
    const reading = response.text();
    let closed = false;
    void server.closed.then(() => (closed = true));
    const closing = server.close();
    expect((await state.fetch!(new Request("http://x/readyz"))).status).toBe(503);
    await acceptTurns();
    // The request in flight holds the close (default shutdownTimeout 5 000 ms, not hit here).
    expect(log).toEqual(["stopAccepting", "drain"]);
    expect(closed).toBe(false);
    end();
    await reading;
    await closing;
    expect(log).toEqual(["stopAccepting", "drain", "closeConnections", "handler.close"]);
    expect(closed).toBe(true);
    expect(server.close()).toBe(closing); // idempotent
  });

  it("ends a response that outlives shutdownTimeout with a ClosedError", async () => {
    const log: string[] = [];
    const { runtime, state } = fakeRuntime(log);
    const { handler } = streamingHandler(log);
    const server = await defineServeAdapter(runtime).serve(handler, { shutdownTimeout: 0 });
    const response = await state.fetch!(new Request("http://x/mcp", { method: "POST" }));
    const reading = response.text().then(() => undefined, (error: unknown) => error);
    await server.close();
    expect(await reading).toBeInstanceOf(ClosedError);
    expect(log).toEqual(["stopAccepting", "drain", "closeConnections", "handler.close"]);
  });

  it("closes when its signal aborts, and refuses an aborted signal or a bad option before listening", async () => {
    const log: string[] = [];
    const { runtime, state } = fakeRuntime(log);
    const abort = new AbortController();
    const server = await defineServeAdapter(runtime).serve(() => new Response("hi"), {
      signal: abort.signal,
    });
    abort.abort();
    await server.closed;
    expect(log).toEqual(["stopAccepting", "closeConnections"]);
    state.address = undefined;
    await expect(defineServeAdapter(runtime).serve(() => new Response(""), { signal: abort.signal })).rejects
      .toThrow();
    await expect(defineServeAdapter(runtime).serve(() => new Response(""), { port: 70_000 })).rejects.toThrow(
      RangeError,
    );
    expect(state.address).toBeUndefined();
  });
});

describe("serve on Deno and Bun takes the runtime as an option, as spawnProcess does", () => {
  it("Deno: serve(handler, { deno }) listens with deno.serve and closes with shutdown()", async () => {
    const log: string[] = [];
    let fetch: Fetch | undefined;
    const deno = {
      serve(options: { port: number; hostname: string }, handler: Fetch) {
        log.push(`serve ${options.hostname}:${options.port}`);
        fetch = handler;
        return {
          addr: { hostname: options.hostname, port: 5555 },
          shutdown: () => {
            log.push("shutdown");
            return Promise.resolve();
          },
        };
      },
    } as unknown as DenoLike;
    const server = await denoServe(() => new Response("deno"), { deno, port: 8080 });
    expect(server.url.href).toBe("http://127.0.0.1:5555/");
    expect(await (await fetch!(new Request("http://x/mcp"))).text()).toBe("deno");
    await server.close();
    expect(log).toEqual(["serve 127.0.0.1:8080", "shutdown"]);
  });

  it("Bun: serve(handler, { bun }) listens with bun.serve (idle timeout off) and stops, then ends connections", async () => {
    const log: string[] = [];
    const bun = {
      serve(options: { port: number; hostname: string; idleTimeout?: number; fetch: Fetch }) {
        log.push(`serve ${options.hostname}:${options.port} idle ${options.idleTimeout}`);
        return { port: 6666, stop: (all?: boolean) => void log.push(`stop ${all}`) };
      },
    } as unknown as BunLike;
    const server = await bunServe(() => new Response("bun"), { bun });
    expect(server.url.href).toBe("http://127.0.0.1:6666/");
    await server.close();
    expect(log).toEqual(["serve 127.0.0.1:0 idle 0", "stop false", "stop true"]);
  });

  it("a runtime without serve() is a TypeError, not a crash", async () => {
    await expect(denoServe(() => new Response(""), { deno: {} as DenoLike })).rejects.toThrow(
      "No Deno.serve",
    );
    await expect(bunServe(() => new Response(""), { bun: {} as BunLike })).rejects.toThrow("No Bun.serve");
  });
});
