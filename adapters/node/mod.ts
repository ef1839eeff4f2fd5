/**
 * `onemodelcontext/node`: spawned servers on `node:child_process`, and this process's stdio for servers.
 *
 * The close sequence, process groups and exit hook are {@linkcode defineProcessAdapter}'s. On POSIX
 * the server is spawned with `detached: true`, so it leads its own process group and `npx`-style
 * grandchildren are signalled with it; a terminal's Ctrl+C then no longer reaches it directly, and the
 * `'exit'` hook SIGTERMs the groups of servers still running (a parent killed by a signal cannot run
 * it: its servers see stdin EOF). On Windows both signal steps run `taskkill /T /F /PID <pid>`.
 * @module
 */
// Servers as child processes, and this process's stdio for a server.
export { spawnProcess, type SpawnProcessOptions } from "./_spawn_process.ts";
export type { ProcessTransport } from "../_process/define_process_adapter.ts";
export type { ProcessConnection, StderrMode } from "../_process/process_connection.ts";
export type { ExitStatus } from "../_process/shutdown_process.ts";
export { stdio, type StdioOptions } from "./_stdio.ts";
export { nodeReadable, nodeWritable } from "./_node_streams.ts";

// A fetch handler on node:http.
export { type FetchHandler, type HttpServer, serve, type ServeOptions } from "./_serve.ts";

// The Streamable HTTP client transport: ContextClient.connect(httpTransport(url, options)).
// On Node it sends with undici's dispatcher API (adapters/node/_undici_send.ts), not fetch.
export type { HttpTransport } from "../../src/http/client/http_client_transport.ts";
export { httpTransport, type HttpTransportOptions } from "./_http_transport.ts";
export type { UndiciSendOptions } from "./_undici_send.ts";
export { envProxyFetch } from "./_proxy_fetch.ts";
export type {
  FetchLike,
  HeadersSource,
  HttpReply,
  HttpSend,
  HttpSendInit,
} from "../../src/http/client/http_endpoint.ts";
export type { ReconnectOptions } from "../../src/http/client/legacy_http_client_session.ts";
export {
  HttpStatusError,
  StreamBrokenError,
  StreamNotResumedError,
} from "../../src/http/client/http_client_errors.ts";

// OAuth on a machine: a CLI's loopback redirect, a workload token file, a lock across processes.
export {
  type LoopbackRedirect,
  type LoopbackRedirectOptions,
  startLoopbackRedirect,
} from "./_oauth_loopback.ts";
export { workloadTokenFile } from "./_oauth_workload_token.ts";
export { FileOAuthLock, type FileOAuthLockOptions } from "./_oauth_file_lock.ts";
