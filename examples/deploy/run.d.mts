import type { RunningNginx, RunningReplica } from "./deploy_kit.mjs";

export interface Deployment {
  url: string;
  nginx: RunningNginx;
  replicas: RunningReplica[];
  stateKey: string;
  stop(): Promise<void>;
}
export function deploy(options?: {
  replicas?: number;
  port?: number;
  sessions?: boolean;
  prefix?: string;
  command?: string[];
  stateKey?: string;
  /** Added to each replica's environment. */
  env?: Record<string, string>;
  upstreamKeepaliveTimeoutSeconds?: number;
  /** nginx adds `X-Upstream-Addr` (the replica) to each response; for tests. Default false. */
  upstreamHeader?: boolean;
  /** How long each replica may take to accept connections, in ms. Default 10 000. */
  replicaStartTimeoutMs?: number;
  log?: (text: string) => void;
}): Promise<Deployment>;
