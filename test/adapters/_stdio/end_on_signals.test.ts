/** endOnSignals with a fake signal runtime: which signal ends input, and when it is raised again. */
import { describe, expect, it } from "vitest";
import { endOnSignals, type SignalRuntime } from "../../../adapters/_stdio/end_on_signals.ts";
import type { TransportConnection } from "../../../src/rpc/transport.ts";
import { createPipe } from "../../../testing/duplex_pair.ts";
import { flushMicrotasks } from "../../../testing/fake_time_provider.ts";

function fakeRuntime(unsupported: string[] = []) {
  const listeners = new Map<string, Set<() => void>>();
  const raised: string[] = [];
  const runtime: SignalRuntime = {
    listen(signal, handler) {
      if (unsupported.includes(signal)) throw new Error(`No ${signal} here`);
      if (!listeners.has(signal)) listeners.set(signal, new Set());
      listeners.get(signal)!.add(handler);
    },
    unlisten: (signal, handler) => void listeners.get(signal)?.delete(handler),
    raise: (signal) => void raised.push(signal),
  };
  const send = (signal: string): boolean => {
    const set = listeners.get(signal);
    if (!set || set.size === 0) return false; // the default action would run
    for (const handler of [...set]) handler();
    return true;
  };
  const listening = (signal: string): number => listeners.get(signal)?.size ?? 0;
  return { runtime, raised, send, listening };
}

function stdioLike() {
  const input = createPipe();
  const output = createPipe();
  const calls: string[] = [];
  const connection: TransportConnection = {
    readable: input.readable,
    writable: output.writable,
    destroy: () => void calls.push("destroy"),
    close: async () => void calls.push("close"),
  };
  return { connection, stdin: input.writable.getWriter(), stdout: output.readable.getReader(), calls };
}

describe("endOnSignals", () => {
  it("ends input on SIGTERM, and raises it again only once output is closed", async () => {
    const fake = fakeRuntime();
    const { connection, stdin, stdout } = stdioLike();
    const wrapped = endOnSignals(connection, ["SIGTERM"], fake.runtime);
    const reader = wrapped.readable.getReader();
    await stdin.write(new TextEncoder().encode("request\n"));
    expect((await reader.read()).value).toEqual(new TextEncoder().encode("request\n"));
    const pending = reader.read();
    expect(fake.send("SIGTERM")).toBe(true);
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(fake.listening("SIGTERM")).toBe(0); // a second signal takes the default action
    expect(fake.raised).toEqual([]);
    const writer = wrapped.writable.getWriter();
    await writer.write(new TextEncoder().encode("reply\n"));
    expect((await stdout.read()).value).toEqual(new TextEncoder().encode("reply\n"));
    expect(fake.raised).toEqual([]);
    await writer.close();
    expect(fake.raised).toEqual(["SIGTERM"]);
  });

  it("raises a caught signal when the connection is torn down instead (destroy)", async () => {
    const fake = fakeRuntime();
    const { connection, calls } = stdioLike();
    const wrapped = endOnSignals(connection, ["SIGTERM", "SIGINT"], fake.runtime);
    fake.send("SIGINT");
    expect(fake.listening("SIGTERM")).toBe(0);
    wrapped.destroy!(new Error("drain ran out"));
    expect(calls).toEqual(["destroy"]);
    expect(fake.raised).toEqual(["SIGINT"]);
  });

  it("raises at once a signal that arrives after input already ended", async () => {
    const fake = fakeRuntime();
    const { connection, stdin } = stdioLike();
    const wrapped = endOnSignals(connection, ["SIGTERM"], fake.runtime);
    const reader = wrapped.readable.getReader();
    await stdin.close();
    expect((await reader.read()).done).toBe(true);
    fake.send("SIGTERM");
    expect(fake.raised).toEqual(["SIGTERM"]);
  });

  it("without a signal, stops listening when output closes and raises nothing", async () => {
    const fake = fakeRuntime();
    const { connection, stdout } = stdioLike();
    const wrapped = endOnSignals(connection, ["SIGTERM"], fake.runtime);
    expect(fake.listening("SIGTERM")).toBe(1);
    const closing = wrapped.writable.close();
    expect((await stdout.read()).done).toBe(true);
    await closing;
    expect(fake.listening("SIGTERM")).toBe(0);
    expect(fake.send("SIGTERM")).toBe(false);
    expect(fake.raised).toEqual([]);
  });

  it("aborts the inner writable at once, even with a write held by a reader that never reads", async () => {
    const fake = fakeRuntime();
    const input = createPipe();
    const output = createPipe(4);
    const wrapped = endOnSignals(
      { readable: input.readable, writable: output.writable },
      ["SIGTERM"],
      fake.runtime,
    );
    const writer = wrapped.writable.getWriter();
    await writer.write(new Uint8Array(8));
    const held = writer.write(new Uint8Array(8));
    held.catch(() => {});
    await flushMicrotasks();
    fake.send("SIGTERM");
    const reason = new Error("torn down");
    await writer.abort(reason);
    await expect(output.readable.getReader().read()).rejects.toBe(reason);
    expect(fake.raised).toEqual(["SIGTERM"]);
  });

  it("skips a signal the runtime cannot listen to, and with no signals returns the connection itself", () => {
    const fake = fakeRuntime(["SIGTERM"]);
    const { connection } = stdioLike();
    expect(endOnSignals(connection, [], fake.runtime)).toBe(connection);
    endOnSignals(connection, ["SIGTERM", "SIGHUP"], fake.runtime);
    expect(fake.listening("SIGTERM")).toBe(0);
    expect(fake.listening("SIGHUP")).toBe(1);
  });
});
