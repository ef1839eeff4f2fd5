/**
 * `onemodelcontext/bun`: spawned servers on `Bun.spawn`, and Bun's stdin/stdout for servers.
 *
 * The close sequence, process groups and exit hook are {@linkcode defineProcessAdapter}'s. On POSIX
 * the server is spawned with `detached: true` (Bun calls `setsid()`), so it leads its own process
 * group; an `'exit'` hook SIGTERMs the groups of servers still running when this process exits. On
 * Windows both signal steps run `taskkill /T /F /PID <pid>`.
 *
 * Backpressure: the child's stdin is a `FileSink`, which buffers what the pipe cannot take yet and
 * then returns a promise from `write()`; every write awaits that promise and the flush, so a write is
 * done only once its bytes reached the pipe. stdout is read only when pulled (Bun reads ahead a
 * bounded amount, about 0.7 MiB measured on 1.4.5).
 * @module
 */
// Servers as child processes, and this process's stdio for a server.
export { spawnProcess, type SpawnProcessOptions } from "./_spawn_process.ts";
export type { ProcessTransport } from "../_process/define_process_adapter.ts";
export type { ProcessConnection, StderrMode } from "../_process/process_connection.ts";
export type { ExitStatus } from "../_process/shutdown_process.ts";
export { stdio, type StdioOptions } from "./_stdio.ts";
export { fileSinkWritable } from "./_file_sink.ts";
// The runtime handle spawnProcess, stdio and serve take (option `bun`), typed structurally.
export type { BunHttpServerLike, BunLike, BunSubprocessLike, FileSinkLike } from "./_bun_like.ts";

// A fetch handler on Bun.serve.
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
