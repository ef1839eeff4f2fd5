/** A raw modern-era POST over its own TCP connection (node:http, no agent), for the memory figures. */
import { request } from "node:http";
import { MODERN_VERSION } from "../lib/payloads.mjs";

export function modernBody(id, method, params) {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method,
    params: {
      ...params,
      _meta: {
        ...params._meta,
        "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { name: "bench", version: "0.0.0" },
      },
    },
  });
}

/** Sends the POST and resolves with the response (headers received, body not read) and its request. */
export function rawPost(url, body, extraHeaders = {}) {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: "POST",
      agent: false,
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "MCP-Protocol-Version": MODERN_VERSION,
        "Content-Length": Buffer.byteLength(body),
        ...extraHeaders,
      },
    });
    req.once("response", (res) => resolve({ req, res }));
    req.once("error", reject);
    req.end(body);
  });
}
