import type { ChildProcess } from "node:child_process";

export const NGINX: string;
export function freePort(): Promise<number>;
export function waitForPort(
  port: number,
  options?: { timeoutMs?: number; what?: string; exited?: () => boolean },
): Promise<void>;
export interface ReplicaAddress {
  name: string;
  port: number;
}
export interface NginxConfigOptions {
  prefix: string;
  port: number;
  replicas: ReplicaAddress[];
  /** true: the prefix pin; "hash": `hash $http_mcp_session_id consistent` (loses sessions, for comparison). */
  sessions?: boolean | "hash";
  readTimeoutSeconds?: number;
  upstreamKeepaliveTimeoutSeconds?: number;
  /** Adds `X-Upstream-Addr: <replica host:port>` to each response (tests: which replica holds a stream). Default false. */
  upstreamHeader?: boolean;
}
export function renderNginxConfig(options: NginxConfigOptions): string;
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}
export interface RunningNginx {
  port: number;
  url: string;
  prefix: string;
  child: ChildProcess;
  exited: Promise<ProcessExit>;
  stop(): Promise<ProcessExit>;
}
export function startNginx(
  options: Omit<NginxConfigOptions, "port"> & { port?: number; log?: (text: string) => void },
): Promise<RunningNginx>;
export interface RunningReplica extends ReplicaAddress {
  child: ChildProcess;
  exited: Promise<ProcessExit>;
  output(): string;
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<ProcessExit>;
}
export function startReplica(
  options: {
    name: string;
    command?: string;
    args: string[];
    port?: number;
    env?: Record<string, string>;
    log?: (text: string) => void;
    startTimeoutMs?: number;
  },
): Promise<RunningReplica>;
