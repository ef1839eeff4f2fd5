/**
 * `inspect` of a server whose list pages forever stops at a bound, in text and JSON alike (issue
 * 25.17: it wrote gigabytes), and says so; a list just under the bound is read whole.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_ITEMS, printInspect } from "../../cli/inspect.ts";
import type { ContextClient } from "onemodelcontext";

/** A client whose tools/list never ends (`total` undefined) or ends after `total` items, `perPage` a page. */
function pagingClient(perPage: number, total?: number) {
  const asked = { pages: 0 };
  const client = {
    era: "modern",
    protocolVersion: "2026-07-28",
    serverInfo: { name: "forever", version: "1" },
    serverCapabilities: { tools: {} },
    negotiation: { outcome: "discovered_modern", elapsedMs: 1 },
    instructions: undefined,
    request: (method: string, params: { cursor?: string }) => {
      if (method !== "tools/list") throw new Error(`unexpected ${method}`);
      asked.pages++;
      const start = Number(params.cursor ?? 0);
      const end = total === undefined ? start + perPage : Math.min(total, start + perPage);
      const tools = Array.from({ length: end - start }, (_, i) => ({ name: `t${start + i}` }));
      return Promise.resolve(
        total !== undefined && end >= total ? { tools } : { tools, nextCursor: String(end) },
      );
    },
  };
  return { client: client as unknown as ContextClient, asked };
}

async function run(client: ContextClient, json: boolean, maxItems?: number) {
  let bytes = 0;
  let out = "";
  const warnings: string[] = [];
  await printInspect(client, {
    json,
    write: (text) => {
      bytes += text.length;
      if (out.length < 1_000_000) out += text;
    },
    warn: (text) => warnings.push(text),
    ...(maxItems === undefined ? {} : { maxItems }),
  });
  return { bytes, out, warnings };
}

describe("inspect of a list that pages forever", () => {
  it("defaults to 100,000 items per list", () => {
    expect(DEFAULT_MAX_ITEMS).toBe(100_000);
  });

  it("text: stops reading at maxItems and warns; the count says how many were read", async () => {
    const { client, asked } = pagingClient(100);
    const r = await run(client, false, 1_000);
    expect(asked.pages).toBe(10);
    expect(r.warnings).toEqual(["tools/list: stopped after 1000 items; the list goes on"]);
    expect(r.out).toContain("(1000 in all)");
  });

  it("JSON: stops at maxItems (a page crossing it is cut), the document stays whole", async () => {
    const { client, asked } = pagingClient(300);
    const r = await run(client, true, 1_000);
    expect(asked.pages).toBe(4);
    const doc = JSON.parse(r.out);
    expect(doc.tools).toHaveLength(1_000);
    expect(r.warnings).toEqual(["tools/list: stopped after 1000 items; the list goes on"]);
  });

  it("with the defaults, output stays bounded (about 100,000 items, not gigabytes)", async () => {
    const { client, asked } = pagingClient(1_000);
    const r = await run(client, true);
    expect(asked.pages).toBe(100);
    expect(r.bytes).toBeLessThan(5_000_000);
  });

  it("a list of exactly maxItems that ends there is read whole, without a warning (not cut early)", async () => {
    const { client } = pagingClient(250, 1_000);
    const r = await run(client, true, 1_000);
    expect(JSON.parse(r.out).tools).toHaveLength(1_000);
    expect(r.warnings).toEqual([]);
  });
});
