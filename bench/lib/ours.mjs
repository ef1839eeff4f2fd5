/** Loads onemodelcontext from its build (`dist/`) by package name, through the package's own exports. */
export async function loadOurs() {
  const { ContextServer, ContextClient } = await import('onemodelcontext');
  const { spawnProcess, stdio } = await import('onemodelcontext/node');
  return { ContextServer, ContextClient, spawnProcess, stdio };
}
