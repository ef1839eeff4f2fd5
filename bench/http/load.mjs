/**
 * The shared HTTP load generator: undici `Client`s (one keep-alive connection each, no pipelining)
 * POSTing one pre-built JSON-RPC `tools/call` echo body with the headers of its era, so every server
 * (ours modern, ours legacy stateless, SDK 2.4 createMcpHandler, the node:http floor) is driven by the
 * same client code and the same bytes. Every reply is checked: status 200 and the echoed text, read
 * from a JSON body or from the last `data:` line of an SSE body.
 */
import { Client } from "undici";
import { ECHO_TEXT, LEGACY_VERSION, MODERN_VERSION } from "../lib/payloads.mjs";

const ECHO_ARGS = { name: "echo", arguments: { text: ECHO_TEXT } };
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "bench-load", version: "0.0.0" },
};

/**
 * The request of one era: `modern` (2026-07-28: `_meta` envelope, `MCP-Protocol-Version`,
 * `Mcp-Method`, `Mcp-Name`), `legacy` (2025-06-18 stateless: `MCP-Protocol-Version` only, no
 * envelope), `plain` (the floor: the bare JSON-RPC request, `Content-Type`/`Accept` only).
 */
export function echoRequest(era) {
  const params = era === "modern" ? { ...ECHO_ARGS, _meta: ENVELOPE } : ECHO_ARGS;
  const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params }));
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  if (era === "modern") {
    Object.assign(headers, {
      "mcp-protocol-version": MODERN_VERSION,
      "mcp-method": "tools/call",
      "mcp-name": "echo",
    });
  }
  if (era === "legacy") headers["mcp-protocol-version"] = LEGACY_VERSION;
  return { body, headers };
}

/** The echoed text of a reply body (JSON, or the last `data:` event of SSE); throws when it is not a result. */
export function echoedText(contentType, text) {
  let json = text;
  if (contentType?.startsWith("text/event-stream")) {
    const data = text.split("\n").filter((line) => line.startsWith("data:"));
    json = data.at(-1)?.slice(5) ?? "";
  }
  const reply = JSON.parse(json);
  if (!reply.result) throw new Error(`Expected a result, got ${json.slice(0, 300)}`);
  return reply.result.content[0].text;
}

/** A load generator on `url`: `connections` keep-alive connections, one request in flight on each. */
export function openLoad(url, { connections, era }) {
  const { origin, pathname } = new URL(url);
  const clients = Array.from(
    { length: connections },
    () => new Client(origin, { pipelining: 1, keepAliveTimeout: 60_000 }),
  );
  const { body, headers } = echoRequest(era);
  const once = async (client) => {
    const { statusCode, headers: replyHeaders, body: reply } = await client.request({
      path: pathname,
      method: "POST",
      headers,
      body,
    });
    const text = await reply.text();
    if (statusCode !== 200) throw new Error(`HTTP ${statusCode}: ${text.slice(0, 300)}`);
    if (echoedText(replyHeaders["content-type"], text) !== ECHO_TEXT) {
      throw new Error("The echo returned a different text");
    }
  };
  return {
    /** Runs for `ms`, every connection sending its next request when its reply is in; resolves with the count and seconds. */
    async run(ms) {
      let completed = 0;
      const start = performance.now();
      const deadline = start + ms;
      await Promise.all(clients.map(async (client) => {
        while (performance.now() < deadline) {
          await once(client);
          completed++;
        }
      }));
      return { completed, seconds: (performance.now() - start) / 1000 };
    },
    close: () => Promise.all(clients.map((client) => client.close())),
  };
}
