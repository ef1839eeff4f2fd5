/**
 * `onemodelcontext demo`: the bundled demo server on this process's stdin/stdout.
 * @module
 */

/** Serves the demo server until stdin ends and the replies are drained (bounded), then exits. */
export async function runDemo(): Promise<void> {
  const demo = new URL("../../examples/demo_tools.mjs", import.meta.url).href;
  const { createDemoServer } = (await import(demo)) as {
    createDemoServer(): { serve(d: unknown): Promise<unknown> };
  };
  const { stdio } = await import("onemodelcontext/node");
  await createDemoServer().serve(stdio());
  process.exit(0);
}
