import { describe, expect, it } from "vitest";
import { ClientFeatureError } from "../../../../src/client/features/feature_errors.ts";
import { connectScripted, type Handler, page, settle, until } from "./helpers.ts";

/** A server whose `method` answers page n (cursor "c<n>") with `sizes[n]` items and a cursor to page n+1. */
function paged(
  method: string,
  key: string,
  sizes: number[],
  extra: (n: number) => Record<string, unknown> = () => ({}),
): Handler {
  return (m, peer) => {
    if (m.method !== method) {
      return m.id !== undefined ? peer.error(m.id, -32601, "Method not found") : undefined;
    }
    const n = m.params?.cursor === undefined ? 0 : Number(String(m.params.cursor).slice(1));
    const from = sizes.slice(0, n).reduce((a, b) => a + b, 0);
    const next = n + 1 < sizes.length ? { nextCursor: `c${n + 1}` } : {};
    peer.reply(m.id, { ...page(key, from, sizes[n]), ...next, ...extra(n) });
  };
}

describe.each(["modern", "legacy"] as const)("client lists (%s era)", (era) => {
  it("listTools follows every cursor and sends each one back as given", async () => {
    const s = await connectScripted(era, paged("tools/list", "tools", [2, 3, 1]));
    const tools = await s.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["t0", "t1", "t2", "t3", "t4", "t5"]);
    expect(s.requests("tools/list").map((m) => m.params?.cursor)).toEqual([undefined, "c1", "c2"]);
    await s.client.close();
  });

  it.each(
    [
      ["listResources", "resources/list", "resources"],
      ["listResourceTemplates", "resources/templates/list", "resourceTemplates"],
      ["listPrompts", "prompts/list", "prompts"],
    ] as const,
  )("%s follows every cursor of %s", async (fn, method, key) => {
    const s = await connectScripted(era, paged(method, key, [1, 2]));
    const items = await s.client[fn]();
    expect(items).toHaveLength(3);
    expect(s.requests(method)).toHaveLength(2);
    await s.client.close();
  });

  it("maxPages holds: a fourth page is never asked for when maxPages is 3", async () => {
    const s = await connectScripted(era, paged("tools/list", "tools", [1, 1, 1, 1]));
    const error = await s.client.listTools({ maxPages: 3 }).catch((e) => e);
    expect(error).toBeInstanceOf(ClientFeatureError);
    expect(error.code).toBe("list_too_long");
    expect(error.message).toMatch(/more than 3 pages/);
    expect(s.requests("tools/list")).toHaveLength(3);
    await s.client.close();
  });

  it("maxPages is not hit early: exactly 3 pages pass with maxPages 3", async () => {
    const s = await connectScripted(era, paged("tools/list", "tools", [1, 1, 1]));
    expect(await s.client.listTools({ maxPages: 3 })).toHaveLength(3);
    await s.client.close();
  });

  it("the client-wide maxListPages applies when the call gives none", async () => {
    const s = await connectScripted(era, paged("tools/list", "tools", [1, 1, 1]), {
      client: { features: { maxListPages: 2 } },
    });
    await expect(s.client.listTools()).rejects.toMatchObject({ code: "list_too_long" });
    await s.client.close();
  });

  it("maxItems holds (5 items over 4) and is not hit early (4 items of 4)", async () => {
    const s = await connectScripted(era, paged("tools/list", "tools", [2, 3]));
    await expect(s.client.listTools({ maxItems: 4 })).rejects.toMatchObject({
      code: "list_too_long",
      message: expect.stringMatching(/more than 4 items/),
    });
    const exact = await connectScripted(era, paged("tools/list", "tools", [2, 2]));
    expect(await exact.client.listTools({ maxItems: 4 })).toHaveLength(4);
    await s.client.close();
    await exact.client.close();
  });

  it("a server that hands out a cursor twice is stopped with repeated_cursor", async () => {
    const s = await connectScripted(era, (m, peer) => {
      const cursor = m.params?.cursor;
      peer.reply(m.id, { ...page("tools", 0, 1), nextCursor: cursor === "a" ? "b" : "a" });
    });
    const error = await s.client.listTools().catch((e) => e);
    expect(error.code).toBe("repeated_cursor");
    expect(error.message).toMatch(/"a"/);
    expect(s.requests("tools/list").map((m) => m.params?.cursor)).toEqual([undefined, "a", "b"]);
    await s.client.close();
  });

  it("a page without its array, or with a non-string cursor, is an invalid_result", async () => {
    const s = await connectScripted(
      era,
      (m, peer) => peer.reply(m.id, m.params?.cursor ? { tools: {} } : { tools: [], nextCursor: 7 }),
    );
    await expect(s.client.listTools()).rejects.toMatchObject({
      code: "invalid_result",
      message: expect.stringMatching(/nextCursor/),
    });
    const t = await connectScripted(era, (m, peer) => peer.reply(m.id, { prompts: "x" }));
    await expect(t.client.listPrompts()).rejects.toMatchObject({
      code: "invalid_result",
      message: expect.stringMatching(/no prompts array/),
    });
    await s.client.close();
    await t.client.close();
  });

  it("iterateTools fetches the next page only when the previous one is used up", async () => {
    const s = await connectScripted(era, paged("tools/list", "tools", [2, 2, 2]));
    const iterator = s.client.iterateTools();
    expect((await iterator.next()).value?.name).toBe("t0");
    await settle();
    expect(s.requests("tools/list")).toHaveLength(1);
    expect((await iterator.next()).value?.name).toBe("t1");
    expect(s.requests("tools/list")).toHaveLength(1);
    expect((await iterator.next()).value?.name).toBe("t2");
    expect(s.requests("tools/list")).toHaveLength(2);
    await iterator.return(undefined);
    await settle();
    expect(s.requests("tools/list")).toHaveLength(2);
    await s.client.close();
  });

  it("iterateTools walks a long list without bounds by default, and honours maxPages when given", async () => {
    const sizes = Array.from({ length: 1_500 }, () => 1);
    const s = await connectScripted(era, paged("tools/list", "tools", sizes));
    let count = 0;
    for await (const _tool of s.client.iterateTools()) count++;
    expect(count).toBe(1_500);
    const bounded = s.client.iterateTools({ maxPages: 2 });
    const names: string[] = [];
    const error = await (async () => {
      for await (const tool of bounded) names.push(tool.name);
    })().catch((e) => e);
    expect(names).toEqual(["t0", "t1"]);
    expect(error.code).toBe("list_too_long");
    await s.client.close();
  });

  it("a page request that gets no reply times out, and the error names the method", async () => {
    const s = await connectScripted(era, () => {});
    const pending = s.client.listTools({ timeout: 1_000 }).catch((e) => e);
    await until(() => s.requests("tools/list").length === 1);
    await s.time.advance(1_000);
    const error = await pending;
    expect(error.code).toBe("timeout");
    expect(error.message).toMatch(/tools\/list.*1000 ms/);
    await s.client.close();
  });
});
