import { describe, expect, it } from "vitest";
import {
  CONNECTION_TRANSITIONS,
  ConnectionLifecycle,
  type ConnectionState,
} from "../../../src/rpc/connection_state.ts";

const STATES: ConnectionState[] = ["new", "open", "eof", "stopping", "draining", "closed"];

describe("ConnectionLifecycle", () => {
  it("starts new, accepting requests, neither reading nor dispatching", () => {
    const life = new ConnectionLifecycle();
    expect(life.state).toBe("new");
    expect(life.acceptsRequests).toBe(true);
    expect(life.reading).toBe(false);
    expect(life.dispatching).toBe(false);
  });

  it("applies exactly the moves of the table and refuses every other, leaving the state unchanged", () => {
    for (const from of STATES) {
      for (const to of STATES) {
        const life = new ConnectionLifecycle();
        const path: Record<ConnectionState, ConnectionState[]> = {
          new: [],
          open: ["open"],
          eof: ["open", "eof"],
          stopping: ["open", "stopping"],
          draining: ["open", "stopping", "draining"],
          closed: ["closed"],
        };
        for (const step of path[from]) expect(life.move(step)).toBe(true);
        expect(life.state).toBe(from);
        const allowed = CONNECTION_TRANSITIONS[from].includes(to);
        expect(life.move(to), `${from} -> ${to}`).toBe(allowed);
        expect(life.state).toBe(allowed ? to : from);
      }
    }
  });

  it("never leaves closed, and every live state may jump to closed", () => {
    expect(CONNECTION_TRANSITIONS.closed).toEqual([]);
    for (const from of STATES.filter((s) => s !== "closed")) {
      expect(CONNECTION_TRANSITIONS[from]).toContain("closed");
    }
  });

  it("reads only while open, dispatches while open or after EOF, accepts requests only before EOF", () => {
    const life = new ConnectionLifecycle();
    life.move("open");
    expect([life.reading, life.dispatching, life.acceptsRequests]).toEqual([true, true, true]);
    life.move("eof");
    expect([life.reading, life.dispatching, life.acceptsRequests]).toEqual([false, true, false]);
    life.move("stopping");
    expect([life.reading, life.dispatching, life.acceptsRequests]).toEqual([false, false, false]);
  });

  it("resolves closed once, with the first claimed outcome over the one finish brings", async () => {
    const life = new ConnectionLifecycle();
    life.move("open");
    life.move("closed");
    life.claim({ reason: "eof", drain: "idle_timeout" });
    life.claim({ reason: "fault" });
    life.finish({ reason: "eof", drain: "drained" });
    life.finish({ reason: "closed" });
    expect(life.state).toBe("closed");
    expect(await life.closed).toEqual({ reason: "eof", drain: "idle_timeout" });
  });

  it("resolves closed with finish's outcome when nothing was claimed", async () => {
    const life = new ConnectionLifecycle();
    life.finish({ reason: "closed", drain: "drained" });
    expect(await life.closed).toEqual({ reason: "closed", drain: "drained" });
  });
});
