/**
 * A ContextClient connected to a scripted in-memory server of either era, on a FakeTimeProvider.
 */
import { ContextClient, type ContextClientOptions } from "../../../../src/client/context_client.ts";
import { FakeTimeProvider, flushMicrotasks } from "../../../../testing/fake_time_provider.ts";
import {
  discoverResult,
  fakeTransport,
  type Message,
  type Peer,
} from "../../../fixtures/hostile/scripted_peer.ts";

export type { Message, Peer };

/** Answers the client's messages after the handshake; return `false` to leave a request unanswered for now. */
export type Handler = (message: Message, peer: Peer) => void;

export interface Scripted {
  client: ContextClient;
  peer: Peer;
  time: FakeTimeProvider;
  reports: Error[];
  /** Messages the server got after the handshake. */
  received(): Message[];
  /** Requests (with an id) of `method` the server got. */
  requests(method: string): Message[];
}

export async function connectScripted(
  era: "modern" | "legacy",
  handler: Handler,
  options: { capabilities?: Record<string, unknown>; client?: ContextClientOptions } = {},
): Promise<Scripted> {
  const time = new FakeTimeProvider();
  const capabilities = options.capabilities ??
    {
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      logging: {},
      completions: {},
    };
  let handshake = 0;
  const transport = fakeTransport((m, peer) => {
    if (m.method === "server/discover") {
      handshake++;
      if (era === "modern") return peer.reply(m.id, discoverResult(undefined, { capabilities }));
      return peer.error(m.id, -32601, "Method not found");
    }
    if (m.method === "initialize") {
      handshake++;
      return peer.reply(m.id, {
        protocolVersion: "2025-11-25",
        capabilities,
        serverInfo: { name: "scripted", version: "1.0.0" },
      });
    }
    if (m.method === "notifications/initialized") return void handshake++;
    handler(m, peer);
  });
  const reports: Error[] = [];
  const client = await ContextClient.connect(transport, {
    era,
    timeProvider: time,
    eraCache: null,
    onReport: (e) => reports.push(e),
    ...options.client,
  });
  const peer = transport.peers[transport.peers.length - 1];
  const skip =
    peer.received.filter((m) =>
      m.method === "server/discover" || m.method === "initialize" || m.method === "notifications/initialized"
    ).length;
  const received = () => peer.received.slice(skip);
  return {
    client,
    peer,
    time,
    reports,
    received,
    requests: (method) => received().filter((m) => m.method === method && m.id !== undefined),
  };
}

/** Lets messages cross the in-memory pipes until `condition` holds (at most 500 host turns). */
export async function until(condition: () => boolean, what = "the condition"): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (condition()) return;
    await flushMicrotasks();
  }
  throw new Error(`Timed out waiting for ${what}`);
}

/** Host turns for messages in flight to land (used before asserting that nothing more happened). */
export async function settle(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await flushMicrotasks();
}

/** Tracks a promise's state without awaiting it. */
export function track<T>(promise: Promise<T>) {
  const state: { settled: boolean; value?: T; error?: unknown } = { settled: false };
  promise.then(
    (value) => Object.assign(state, { settled: true, value }),
    (error) => Object.assign(state, { settled: true, error }),
  );
  return state;
}

/** A page of `count` numbered items of `key`, starting at `from`. */
export function page(
  key: string,
  from: number,
  count: number,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const items = Array.from(
    { length: count },
    (
      _,
      i,
    ) => (key === "tools"
      ? { name: `t${from + i}`, inputSchema: { type: "object" } }
      : key === "resourceTemplates"
      ? { name: `r${from + i}`, uriTemplate: `file:///{x${from + i}}` }
      : key === "resources"
      ? { name: `r${from + i}`, uri: `file:///r${from + i}` }
      : { name: `p${from + i}` }),
  );
  return { [key]: items, ...extra };
}
