// The floor: the least a newline-JSON server can do. stdin 'data' → split on \n (chunk list, no
// repeated concat) → JSON.parse → the same result object → JSON.stringify + '\n' → stdout.write.
// No protocol layer, no validation, no backpressure.
import { callTool } from "./tools.mjs";
import { lineSplitter } from "../lib/floor_lines.mjs";

const reply = (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return;
  const result = message.method === "tools/call" ? callTool(message.params) : {};
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }) + "\n");
};
process.stdin.on("data", lineSplitter(reply));
