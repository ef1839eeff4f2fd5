/**
 * Cross-runtime: a Node ContextClient against a ContextServer running on Deno (both eras, 1,000
 * requests each), and Node's own stdio() in a real Node server process (built dist/).
 */
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, test } from "vitest";
import { spawnProcess } from "../../adapters/node.ts";
import { ContextClient } from "../../src/client/context_client.ts";
import { NewlineChannel } from "../../src/stream/newline_channel.ts";
import { ensureDist } from "../fixtures/ours/build_dist.ts";
import { denoBin, liveGroupMembers, repo, waitUntil } from "./helpers.ts";

const contextServer = `${repo}test/fixtures/processes/context_server.mjs`;
const stdioServer = `${repo}test/fixtures/processes/stdio_server.mjs`;
const url = (path: string): string => pathToFileURL(`${repo}${path}`).href;

describe("Node client → Deno server", () => {
  const transport = spawnProcess(denoBin, ["run", "-A", contextServer, url("src/server/context_server.ts"), url("adapters/deno.ts")]);
  for (const era of ["modern", "legacy", "auto"] as const) {
    test(`era ${era}: negotiates and runs 1,000 requests`, async () => {
      const started = performance.now();
      const client = await ContextClient.connect(transport, { era, eraCache: null });
      expect(client.era).toBe(era === "legacy" ? "legacy" : "modern");
      expect(client.serverInfo?.name).toBe("matrix-deno");
      const results = await Promise.all(
        Array.from({ length: 1000 }, (_, i) => client.request<{ i: number; era: string; runtime: string }>("test/echo", { i })),
      );
      results.forEach((result, i) => expect(result).toMatchObject({ i, era: client.era, runtime: "deno" }));
      const closing = performance.now();
      await client.close();
      console.log(
        `[node→deno ${era}] ${client.era} ${client.protocolVersion}: connect + 1,000 requests ${(closing - started).toFixed(0)} ms, close ${(performance.now() - closing).toFixed(0)} ms`,
      );
    });
  }
});

describe("stdio() on Node, in a real Node server process", () => {
  beforeAll(() => ensureDist(), 120_000);
  const adapter = (): string => url("dist/adapters/node.js");

  test("echoes 1,000 lines", async () => {
    const connection = await spawnProcess("node", [stdioServer, adapter(), "echo"]).open();
    const channel = new NewlineChannel(connection);
    const sending = (async () => {
      for (let i = 0; i < 1000; i++) await channel.send({ i });
    })();
    for (let i = 0; i < 1000; i++) {
      const line = await channel.read();
      expect(line).toEqual({ kind: "line", text: JSON.stringify({ i }) });
    }
    await sending;
    await channel.closeOutput();
    expect(await channel.read()).toBeUndefined();
    await connection.close();
    expect(connection.shutdownStep).toBe("exited");
    expect(connection.stderrTail()).toContain("echo done");
  });

  test("a server whose client stopped reading blocks on stdout, and exits by itself after destroy()", async () => {
    const lines: string[] = [];
    const connection = await spawnProcess("node", [stdioServer, adapter(), "stalled"], { stderr: (l) => lines.push(l) }).open();
    expect(await waitUntil(() => lines.includes("destroyed"), 10_000)).toBe(true);
    const stalled = lines.find((l) => l.startsWith("stalled after"))!;
    const started = performance.now();
    const status = await Promise.race([connection.exited, new Promise((r) => setTimeout(r, 5000)).then(() => undefined)]);
    console.log(`[node] stdio() server: ${stalled} × 64 KiB, then exited ${(performance.now() - started).toFixed(1)} ms after destroy()`);
    expect(status).toBeDefined();
    expect(Number(stalled.split(" ")[2])).toBeLessThan(8);
    await connection.close();
  });

  test("a parent that exits without close() SIGTERMs the group of a server that ignores stdin EOF", async () => {
    const { execFileSync } = await import("node:child_process");
    const out = execFileSync("node", [`${repo}test/fixtures/processes/abandon.mjs`, adapter(), "node", `${repo}test/fixtures/processes/peer.mjs`, "--ignore-eof"]);
    const pid = Number(out.toString().trim());
    expect(pid).toBeGreaterThan(0);
    expect(await waitUntil(() => liveGroupMembers(pid).length === 0, 3000)).toBe(true);
  });

  test("Node client → Node server on stdio(): both eras", async () => {
    const transport = spawnProcess("node", [contextServer, url("dist/src/server/context_server.js"), adapter()]);
    for (const era of ["modern", "legacy"] as const) {
      const client = await ContextClient.connect(transport, { era, eraCache: null });
      expect(client.era).toBe(era);
      const results = await Promise.all(Array.from({ length: 1000 }, (_, i) => client.request<{ i: number }>("test/echo", { i })));
      results.forEach((result, i) => expect(result.i).toBe(i));
      await client.close();
    }
  });
});
