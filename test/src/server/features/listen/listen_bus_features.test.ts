/** ServerFeatures with a listenBus: changes made on one replica reach the listen streams and sessions of another. */
import { describe, expect, it } from "vitest";
import { InProcessListenBus } from "../../../../../src/server/features/listen/in_process_listen_bus.ts";
import type {
  ListenBus,
  ListenBusEvent,
  ListenEvent,
  ListenEventHandler,
} from "../../../../../src/server/features/listen/listen_bus.ts";
import { ServerFeatures } from "../../../../../src/server/features/server_features.ts";
import { MetaKeys } from "../../../../../src/wire/protocol_versions.ts";
import { FakeHost, FakeSession, modernContext } from "../helpers.ts";

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
const SUB = MetaKeys.subscriptionId;

/** A bus that records what is published and lets the test deliver events, like a remote replica would. */
class RecordingBus implements ListenBus {
  readonly replicaId = "here";
  readonly published: ListenEvent[] = [];
  readonly #local = new InProcessListenBus({ replicaId: "here" });
  failNext: Error | undefined;
  publish(event: ListenEvent): Promise<void> {
    if (this.failNext) return Promise.reject(this.failNext);
    this.published.push(event);
    return this.#local.publish(event);
  }
  deliver(event: ListenBusEvent): void {
    this.#local.deliver(event);
  }
  subscribe(handler: ListenEventHandler): () => void {
    return this.#local.subscribe(handler);
  }
  close(): Promise<void> {
    return this.#local.close();
  }
}

/** A replica: features on a fake host, with one modern listen stream open on it. */
async function replica(bus: ListenBus) {
  const host = new FakeHost();
  const features = new ServerFeatures(host, { listenBus: bus });
  features.tool("base", {}, () => "x");
  features.resource("test://watched", { text: "w" });
  features.prompt("p", {}, () => "x");
  await tick();
  const stream = modernContext({ requestId: 7 });
  void host.call("subscriptions/listen", {
    notifications: {
      toolsListChanged: true,
      promptsListChanged: true,
      resourceSubscriptions: ["test://watched"],
    },
  }, stream);
  await tick();
  stream.sent.length = 0; // the acknowledgement
  return { host, features, stream };
}

describe("ServerFeatures with a listen bus", () => {
  it("delivers a tool registered on one replica to a listen stream and a legacy session held by another", async () => {
    const bus = new InProcessListenBus(); // two servers on one bus: what two replicas on Redis see
    const a = await replica(bus);
    const b = await replica(bus);
    // b's own registrations at start reached a's stream: a replica that starts announces its lists
    // (a rolling update may change them).
    expect(a.stream.sent.map((m) => m.method).sort()).toEqual([
      "notifications/prompts/list_changed",
      "notifications/tools/list_changed",
    ]);
    a.stream.sent.length = 0;
    const session = new FakeSession();
    b.host.live.add(session);
    a.features.tool("added", {}, () => "x");
    await tick();
    expect(b.stream.sent).toEqual([{
      method: "notifications/tools/list_changed",
      params: { _meta: { [SUB]: 7 } },
    }]);
    expect(session.sent.map((m) => m.method), JSON.stringify(session.sent)).toEqual([
      "notifications/tools/list_changed",
    ]);
    expect(a.stream.sent.map((m) => m.method)).toEqual(["notifications/tools/list_changed"]); // its own streams too, once
  });

  it("delivers a resource update made on one replica to the streams subscribed to it on another", async () => {
    const bus = new InProcessListenBus();
    const a = await replica(bus);
    const b = await replica(bus);
    a.features.resourceUpdated("test://watched");
    a.features.resourceUpdated("test://unwatched");
    expect(b.stream.sent).toEqual([{
      method: "notifications/resources/updated",
      params: { uri: "test://watched", _meta: { [SUB]: 7 } },
    }]);
  });

  it("publishes one event per list for registrations made in one run", async () => {
    const bus = new RecordingBus();
    const { features } = await replica(bus);
    bus.published.length = 0;
    features.tool("x1", {}, () => "x");
    features.tool("x2", {}, () => "x");
    features.prompt("p2", {}, () => "x");
    await tick();
    expect(bus.published).toEqual([{ type: "list_changed", list: "tools" }, {
      type: "list_changed",
      list: "prompts",
    }]);
  });

  it("announces every list it has as changed on resync", async () => {
    const bus = new RecordingBus();
    const { stream } = await replica(bus);
    bus.deliver({ type: "resync", origin: "bus" });
    await tick();
    expect(stream.sent.map((m) => m.method).sort()).toEqual([
      "notifications/prompts/list_changed",
      "notifications/tools/list_changed",
    ]);
  });

  it("reports a publish that fails", async () => {
    const bus = new RecordingBus();
    const { host, features } = await replica(bus);
    bus.failNext = new Error("Redis is down");
    features.resourceUpdated("test://watched");
    await tick();
    expect(host.reports.map((e) => e.message)).toEqual(["Redis is down"]);
  });
});
