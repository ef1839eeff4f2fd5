/**
 * `onemodelcontext/deno`: spawned servers on `Deno.Command`, and `Deno.stdin`/`Deno.stdout` for servers.
 *
 * The close sequence, process groups and exit hook are {@linkcode defineProcessAdapter}'s. Process
 * groups: `detached: true` (Deno ≥ 2.5) calls `setsid()` in the child; older Deno runs the child
 * through `/usr/bin/setsid` or `/bin/setsid` when present, else only the server itself is signalled.
 * Needs `--allow-run` (and `--allow-read` for the `/proc` check that ignores zombies on Linux). An
 * `unload` listener SIGTERMs the groups of servers still running when this process exits. On Windows
 * both signal steps run `taskkill /T /F /PID <pid>`.
 * @module
 */
// Servers as child processes, and this process's stdio for a server.
export { spawnProcess, type SpawnProcessOptions } from "./_spawn_process.ts";
export type { ProcessTransport } from "../_process/define_process_adapter.ts";
export type { ProcessConnection, StderrMode } from "../_process/process_connection.ts";
export type { ExitStatus } from "../_process/shutdown_process.ts";
export { stdio, type StdioOptions } from "./_stdio.ts";
// The runtime handle spawnProcess, stdio and serve take (option `deno`), typed structurally.
export type { DenoChildProcessLike, DenoHttpServerLike, DenoLike } from "./_deno_like.ts";

// A fetch handler on Deno.serve.
export { type FetchHandler, type HttpServer, serve, type ServeOptions } from "./_serve.ts";

// The Streamable HTTP client transport: ContextClient.connect(httpTransport(url, options)).
export {
  type HttpTransport,
  httpTransport,
  type HttpTransportOptions,
} from "../../src/http/client/http_client_transport.ts";
export type { FetchLike, HeadersSource } from "../../src/http/client/http_endpoint.ts";
export type { ReconnectOptions } from "../../src/http/client/legacy_http_client_session.ts";
export {
  HttpStatusError,
  StreamBrokenError,
  StreamNotResumedError,
} from "../../src/http/client/http_client_errors.ts";
