// Memory benchmark server on onemodelcontext: ContextServer with its feature layer (server.tool),
// so that `subscriptions/listen` is served, behind createHttpHandler + serve on 127.0.0.1.
// `flood` sends FLOOD_NOTIFICATIONS progress notifications (each awaited, as a handler should),
// printing "sent N" to stdout every 10,000. Prints its URL as the first line of stdout.
import { ContextServer, createHttpHandler } from "onemodelcontext";
import { serve } from "onemodelcontext/node";

const total = Number(process.env.FLOOD_NOTIFICATIONS ?? 300_000);
const server = new ContextServer({ name: "bench-ours-features", version: "1.0.0" });
server.tool("echo", { description: "Returns its text argument" }, (args) => String(args?.text));
server.tool("flood", { description: "Sends progress notifications" }, async (_args, context) => {
  for (let sent = 1; sent <= total; sent++) {
    await context.sendProgress(sent, { total });
    if (sent % 10_000 === 0) process.stdout.write(`sent ${sent}\n`);
  }
  return "done";
});
const http = await serve(
  createHttpHandler(server, { path: "/mcp", maxStreams: Number(process.env.MAX_STREAMS ?? 1000) }),
  { port: 0, hostname: "127.0.0.1" },
);
process.stdout.write(`${new URL("/mcp", http.url).href}\n`);
process.once("SIGTERM", () => void http.close().then(() => process.exit(0)));
