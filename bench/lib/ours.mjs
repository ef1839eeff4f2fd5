/**
 * Loads onemodelcontext from its build (`dist/`) by package name, through the package's own exports;
 * `stdio` comes from the adapter of the runtime this runs on (Node, Deno or Bun), so that the same
 * bench server runs under each.
 */
export async function loadOurs() {
  const { ContextServer, ContextClient } = await import("onemodelcontext");
  const { spawnProcess, stdio: nodeStdio } = await import("onemodelcontext/node");
  let stdio = nodeStdio;
  if (globalThis.Bun) ({ stdio } = await import("onemodelcontext/bun"));
  else if (globalThis.Deno) ({ stdio } = await import("onemodelcontext/deno"));
  return { ContextServer, ContextClient, spawnProcess, stdio };
}
