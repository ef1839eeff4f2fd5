import { describe, expect, it } from "vitest";
import { Disconnect } from "../../../adapters/node/_disconnect.ts";

describe("Disconnect", () => {
  it("aborts a signal read before the client went away, with the first reason only", () => {
    const disconnect = new Disconnect();
    const signal = disconnect.signal;
    expect(signal.aborted).toBe(false);
    const reason = new Error("The client closed the connection");
    disconnect.abort(reason);
    disconnect.abort(new Error("second"));
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(reason);
    expect(disconnect.signal).toBe(signal);
  });

  it("makes a signal read after the client went away already aborted, with that reason", () => {
    const disconnect = new Disconnect();
    const reason = new Error("The client closed the connection");
    disconnect.abort(reason);
    expect(disconnect.signal.aborted).toBe(true);
    expect(disconnect.signal.reason).toBe(reason);
  });

  it("tells its watcher once when the client goes away, and at once when watched after it went", () => {
    const seen: Error[] = [];
    const disconnect = new Disconnect();
    disconnect.watch({ disconnected: (reason) => void seen.push(reason) });
    expect(seen).toEqual([]);
    const reason = new Error("The client closed the connection");
    disconnect.abort(reason);
    disconnect.abort(new Error("second"));
    expect(seen).toEqual([reason]);
    const late: Error[] = [];
    disconnect.watch({ disconnected: (r) => void late.push(r) });
    expect(late).toEqual([reason]);
  });
});
