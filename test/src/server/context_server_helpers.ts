/** Shared set-up of the ContextServer unit suites: a server on one end of an in-memory pair, a raw peer on the other. */
import { ContextServer, type ContextServerOptions } from "../../../src/server/context_server.ts";
import type { Duplex } from "../../../src/stream/duplex.ts";
import { NewlineChannel } from "../../../src/stream/newline_channel.ts";
import { MetaKeys } from "../../../src/wire/protocol_versions.ts";
import { createDuplexPair } from "../../../testing/duplex_pair.ts";
import { FakeTimeProvider } from "../../../testing/fake_time_provider.ts";

// deno-lint-ignore no-explicit-any
export type Json = any;

/** The raw client side: sends objects, reads parsed lines. */
export class Peer {
  readonly channel: NewlineChannel;
  constructor(duplex: Duplex, time: FakeTimeProvider) {
    this.channel = new NewlineChannel(duplex, { timeProvider: time });
  }
  send(message: unknown): Promise<void> {
    return this.channel.send(message);
  }
  /** The next message from the server, or `undefined` at EOF. */
  async next(): Promise<Json> {
    const item = await this.channel.read();
    if (item === undefined) return undefined;
    if (item.kind !== "line") throw item.error;
    return JSON.parse(item.text);
  }
  /** Sends a request and returns the next message (use only when nothing else is in flight). */
  async call(id: number | string, method: string, params?: unknown): Promise<Json> {
    const message: Record<string, unknown> = { jsonrpc: "2.0", id, method };
    if (params !== undefined) message.params = params;
    await this.send(message);
    return this.next();
  }
}

export const CLIENT_INFO = { name: "test-client", version: "0.0.1" };

/** A modern request's `_meta` envelope. */
export function envelope(
  version = "2026-07-28",
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    [MetaKeys.protocolVersion]: version,
    [MetaKeys.clientCapabilities]: { elicitation: {} },
    [MetaKeys.clientInfo]: CLIENT_INFO,
    ...extra,
  };
}

/** `initialize` params of a legacy client. */
export function initializeParams(protocolVersion = "2025-06-18"): Record<string, unknown> {
  return { protocolVersion, capabilities: { roots: {} }, clientInfo: CLIENT_INFO };
}

export function setup(options: Partial<ContextServerOptions> = {}) {
  const time = new FakeTimeProvider();
  const server = new ContextServer({
    name: "test-server",
    version: "1.2.3",
    capabilities: { tools: {} },
    instructions: "Be kind",
    timeProvider: time,
    ...options,
  });
  const [serverSide, clientSide] = createDuplexPair();
  const served = server.serve(serverSide);
  const peer = new Peer(clientSide, time);
  return { server, served, peer, time, serverSide, clientSide };
}
