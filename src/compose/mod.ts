/**
 * `onemodelcontext/compose`: one MCP server in front of many. {@linkcode ComposedServer} mounts
 * servers (in-process, spawned, over HTTP in either era) under names; {@linkcode createProxy} is
 * the one-upstream, nothing-renamed case.
 * @module
 */
export {
  ComposedServer,
  type ComposedServerOptions,
  createProxy,
  type MountSource,
} from "./composed_server.ts";
export { MountedServer, type MountFilter, type MountOptions } from "./mounted_server.ts";
export { ConcurrencyLimit } from "./concurrency_limit.ts";
export { inProcessTransport, type ServesStreams } from "./in_process_transport.ts";
