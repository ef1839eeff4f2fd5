/**
 * The two tools every benchmark server exposes, shared so that each implementation does the same
 * work: `echo` returns its `text` argument, `blob` returns a cached string of `bytes` bytes.
 */
import { textOfSize } from "../lib/payloads.mjs";

export const TOOLS = [
  {
    name: "echo",
    description: "Returns its text argument",
    inputSchema: { type: "object", properties: { text: { type: "string" } } },
  },
  {
    name: "blob",
    description: "Returns that many bytes of text",
    inputSchema: { type: "object", properties: { bytes: { type: "number" } } },
  },
];

/** The result of `tools/call` with these params. */
export function callTool(params) {
  const args = params?.arguments ?? {};
  switch (params?.name) {
    case "echo":
      return { content: [{ type: "text", text: String(args.text) }] };
    case "blob":
      return { content: [{ type: "text", text: textOfSize(Number(args.bytes)) }] };
    default:
      return { content: [{ type: "text", text: `Unknown tool ${params?.name}` }], isError: true };
  }
}

/** `--linger`: keep the process alive after stdin EOF (a server that ignores EOF until signalled). */
export function lingerIfAsked() {
  if (process.argv.includes("--linger")) setInterval(() => {}, 1 << 30);
}
