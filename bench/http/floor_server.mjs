// The HTTP floor: plain node:http, reads the POST body, JSON.parse, answers the echo tool's result
// as one JSON-RPC response (JSON.stringify, Content-Type application/json). No protocol, no
// validation, no headers checked. Prints its URL as the first line of stdout.
import { createServer } from "node:http";
import { callTool } from "../peers/tools.mjs";

const http = createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    const message = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const body = JSON.stringify({ jsonrpc: "2.0", id: message.id, result: callTool(message.params) });
    res.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) }).end(
      body,
    );
  });
});
http.keepAliveTimeout = 5_000;
http.listen(0, "127.0.0.1", () => process.stdout.write(`http://127.0.0.1:${http.address().port}/mcp\n`));
process.once("SIGTERM", () => http.close(() => process.exit(0)));
