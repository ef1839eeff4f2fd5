import { ContextServer } from "onemodelcontext";
import { stdio } from "onemodelcontext/node";
import * as z from "zod";

const server = new ContextServer({ name: "weather", version: "1.0.0" }); // capabilities follow what you register

server.tool("forecast", {
  description: "Forecast for a city",
  inputSchema: z.object({ city: z.string(), days: z.number().int().max(7).default(3) }), // zod 4, valibot, arktype…
  outputSchema: { type: "object", properties: { summary: { type: "string" } }, required: ["summary"] },
}, async ({ city, days }, ctx) => {
  await ctx.sendProgress(1, { total: 2, message: "fetching" }); // only when the client sent a progressToken
  await ctx.log("info", `forecast for ${city}`); // only when the client asked for logs
  return { structuredContent: { summary: `${days} sunny days in ${city}` } };
});

server.tool("add", {
  inputSchema: {
    type: "object",
    properties: { a: { type: "number" }, b: { type: "number" } },
    required: ["a", "b"],
  },
}, ({ a, b }) => String(Number(a) + Number(b))); // a JSON Schema: arguments arrive as a checked plain object

server.resourceTemplate("city://{name}/today", {
  name: "today",
  mimeType: "text/plain",
  complete: { name: (v) => ["Oslo", "Lima"].filter((c) => c.startsWith(v)) },
}, (_uri, { name }) => `Today in ${name}: sunny`);

server.prompt(
  "plan-trip",
  { argsSchema: z.object({ city: z.string().describe("Where to") }) },
  ({ city }) => `Plan three days in ${city}.`,
);

await server.serve(stdio());
process.exit(0);
