// @ts-check
// A module Worker hosting a dual-era MCP server; the page hands it one end of a MessageChannel.
import { ContextServer } from "onemodelcontext";
import { fromMessagePort } from "onemodelcontext/message-port";

const server = new ContextServer({ name: "worker-demo", version: "1.0.0", capabilities: { tools: {} } });
server.handle("tools/list", () => ({
  tools: [{
    name: "shout",
    description: "Upper-cases its text.",
    inputSchema: { type: "object", properties: { text: { type: "string" } } },
  }],
}));
server.handle(
  "tools/call",
  /** @param {{ arguments?: { text?: unknown } } | undefined} params */
  (params) => ({ content: [{ type: "text", text: String(params?.arguments?.text ?? "").toUpperCase() }] }),
);

self.onmessage = (event) => {
  const [port] = event.ports;
  if (port) server.serve(fromMessagePort(port));
};
