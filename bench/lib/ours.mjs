/**
 * Loads onemodelcontext from its build (`dist/`) through the package's own exports, falling back to
 * the module files while `src/mod.ts` does not re-export a symbol yet.
 */
export async function loadOurs() {
  const core = await import('onemodelcontext');
  const node = await import('onemodelcontext/node');
  const ContextServer = core.ContextServer ?? (await import('../../dist/src/server/context_server.js')).ContextServer;
  const ContextClient = core.ContextClient ?? (await import('../../dist/src/client/context_client.js')).ContextClient;
  return { ContextServer, ContextClient, spawnProcess: node.spawnProcess, stdio: node.stdio };
}
