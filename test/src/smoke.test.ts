import { describe, expect, it } from "vitest";
import { NewlineChannel } from "../../src/newline_channel.ts";
import { createDuplexPair } from "../../testing/duplex_pair.ts";

describe("smoke", () => {
  it("round trips", async () => {
    const [a, b] = createDuplexPair();
    const ca = new NewlineChannel(a);
    const cb = new NewlineChannel(b);
    await ca.send({ hello: "wörld" });
    await ca.send({ n: 2 });
    expect(await cb.read()).toEqual({ kind: "line", text: '{"hello":"wörld"}' });
    expect(await cb.read()).toEqual({ kind: "line", text: '{"n":2}' });
    const big = "x".repeat(3 * 1024 * 1024);
    const p = ca.send({ big });
    const got = await cb.read();
    await p;
    expect(got?.kind).toBe("line");
    await ca.close();
    expect(await cb.read()).toBeUndefined();
  });
});
