import { describe, expect, it } from "vitest";
import { DEFAULT_PAGE_SIZE, encodeCursor, paginate } from "../../../../src/server/features/pagination.ts";
import { ServerFeatures } from "../../../../src/server/features/server_features.ts";
import { FakeHost, legacyContext, modernContext } from "./helpers.ts";

const items = Array.from({ length: 5 }, (_, i) => i);

describe("paginate and list cursors", () => {
  it("pages by pageSize and follows nextCursor to the end, the last page carrying none", () => {
    const first = paginate("tools", items, {}, 2);
    expect(first.items).toEqual([0, 1]);
    const second = paginate("tools", items, { cursor: first.nextCursor }, 2);
    expect(second.items).toEqual([2, 3]);
    const third = paginate("tools", items, { cursor: second.nextCursor }, 2);
    expect(third).toEqual({ items: [4] });
  });

  it("gives no cursor when the list fits exactly in one page, and one when it is a single item longer", () => {
    expect(paginate("tools", items, {}, 5)).toEqual({ items });
    expect(paginate("tools", items, {}, 4).nextCursor).toBeDefined();
  });

  it("answers a cursor that is not a string, not ours, or from another list with -32602", () => {
    for (
      const cursor of [
        7,
        "not-base64!",
        btoa("{}"),
        btoa(JSON.stringify(["tools", -1])),
        btoa(JSON.stringify(["tools", 1.5])),
        encodeCursor("prompts", 2),
        "x".repeat(300),
      ]
    ) {
      expect(() => paginate("tools", items, { cursor }, 2)).toThrow(
        expect.objectContaining({ code: -32602 }),
      );
    }
  });

  it("gives an empty last page for a cursor past the end (the list shrank)", () => {
    expect(paginate("tools", items, { cursor: encodeCursor("tools", 50) }, 2)).toEqual({ items: [] });
  });

  it("lists pages of every list method with the pageSize option, default 100", async () => {
    expect(DEFAULT_PAGE_SIZE).toBe(100);
    const host = new FakeHost();
    const features = new ServerFeatures(host, { pageSize: 2 });
    for (let i = 0; i < 3; i++) {
      features.tool(`t${i}`, {}, () => "x");
      features.prompt(`p${i}`, {}, () => "x");
      features.resource(`test://r${i}`, { text: "x" });
      features.resourceTemplate(`test://t${i}/{x}`, {}, () => "x");
    }
    for (
      const [method, key] of [["tools/list", "tools"], ["prompts/list", "prompts"], [
        "resources/list",
        "resources",
      ], ["resources/templates/list", "resourceTemplates"]]
    ) {
      const first = await host.call(method, {}, legacyContext());
      expect(first[key]).toHaveLength(2);
      const second = await host.call(method, { cursor: first.nextCursor }, modernContext());
      expect(second[key]).toHaveLength(1);
      expect(second.nextCursor).toBeUndefined();
      await expect(host.call(method, { cursor: "bogus" }, modernContext())).rejects.toMatchObject({
        code: -32602,
      });
    }
  });

  it("a default-size list of 100 tools fits in one page; 101 do not", async () => {
    const host = new FakeHost();
    const features = new ServerFeatures(host);
    for (let i = 0; i < 100; i++) features.tool(`t${i}`, {}, () => "x");
    expect((await host.call("tools/list", {}, legacyContext())).nextCursor).toBeUndefined();
    features.tool("t100", {}, () => "x");
    expect((await host.call("tools/list", {}, legacyContext())).nextCursor).toBeDefined();
  });

  it("refuses a pageSize below 1", () => {
    expect(() => new ServerFeatures(new FakeHost(), { pageSize: 0 })).toThrow(/pageSize/);
  });
});
