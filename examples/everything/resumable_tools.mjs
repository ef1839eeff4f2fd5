// @ts-check
// The everything server's tools for resumable streams (see ./server.mjs): `progress_stream` sends
// `count` progress notifications `intervalMs` apart, then answers `sent {count}`; over legacy HTTP with
// resumability a client whose connection breaks resumes it with GET + Last-Event-ID and loses none.

/**
 * Adds `progress_stream` to `server`.
 * @param {import("onemodelcontext").ContextServer} server
 */
export function addResumableTools(server) {
  server.tool(
    "progress_stream",
    {
      description:
        "Sends count notifications/progress (1..count, total count) intervalMs apart, then 'sent {count}'",
      inputSchema: {
        type: "object",
        properties: {
          count: { type: "integer", minimum: 1, maximum: 100000 },
          intervalMs: { type: "integer", minimum: 0, maximum: 1000 },
        },
        required: ["count"],
        additionalProperties: false,
      },
    },
    async (args, ctx) => {
      // Checked against the input schema above before the handler runs.
      const { count, intervalMs = 0 } = /** @type {{ count: number, intervalMs?: number }} */ (args);
      for (let progress = 1; progress <= count; progress++) {
        await ctx.sendProgress(progress, { total: count });
        if (intervalMs > 0 && progress < count) {
          await new Promise((resolve) => setTimeout(resolve, intervalMs));
        }
      }
      return `sent ${count}`;
    },
  );
}
