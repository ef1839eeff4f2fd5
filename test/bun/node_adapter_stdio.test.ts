/**
 * The Node adapter's `stdio()` run by Bun: a server written against `onemodelcontext/node` must answer
 * when started with `bun` (Bun's process.stdin is not Node's: it stops reading on `pause()`).
 * @module
 */
import { expect, test } from "bun:test";
import { contextServerFixture, runtimeBin } from "../conformance/runtimes.ts";

const repo = new URL("../../", import.meta.url);
const nodeAdapter = new URL("adapters/node/mod.ts", repo).href;
const contextServer = new URL("src/server/context_server.ts", repo).href;

/** The first newline-terminated line of `stream`, decoded. */
async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of stream) {
    text += decoder.decode(chunk, { stream: true });
    const end = text.indexOf("\n");
    if (end >= 0) return text.slice(0, end);
  }
  throw new Error(`stdout ended before a full line: ${JSON.stringify(text)}`);
}

test(
  "a server on the Node adapter's stdio() run by bun answers initialize and ends on stdin EOF",
  async () => {
    const child = Bun.spawn([runtimeBin.bun, contextServerFixture, contextServer, nodeAdapter], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      const initialize = {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "bun-test", version: "1.0.0" },
        },
      };
      child.stdin.write(JSON.stringify(initialize) + "\n");
      await child.stdin.flush();
      const reply = JSON.parse(await firstLine(child.stdout));
      expect(reply.id).toBe(1);
      expect(reply.result.serverInfo.name).toBe("matrix-bun");
      await child.stdin.end();
      expect(await child.exited).toBe(0);
      expect(await new Response(child.stderr).text()).toContain("served:");
    } finally {
      child.kill("SIGKILL");
    }
  },
  30_000,
);
