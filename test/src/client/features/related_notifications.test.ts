// The feature API over a transport that ties notifications to their request (HTTP: everything on the
// request's response stream), driven through a fake FeatureHost, without a stream.
import { describe, expect, it } from "vitest";
import { ClientFeatures } from "../../../../src/client/features/client_features.ts";
import type { FeatureHost, HostRequestOptions } from "../../../../src/client/features/feature_host.ts";
import type { LogEntry, ProgressUpdate } from "../../../../src/client/features/feature_types.ts";
import { MetaKeys } from "../../../../src/wire/protocol_versions.ts";
import { FakeTimeProvider } from "../../../../testing/fake_time_provider.ts";

function fakeHost(
  answer: (method: string, params: Record<string, unknown>, options: HostRequestOptions) => unknown,
): FeatureHost {
  return {
    era: () => "modern",
    serverCapabilities: () => ({}),
    time: new FakeTimeProvider(),
    request: async (method, params, options) => answer(method, params, options),
    closed: () => new Promise(() => {}),
    report: (error) => {
      throw error;
    },
  };
}

describe("notifications tied to their request", () => {
  it("progress and log messages handed to the request's onNotification reach onProgress and onLog", async () => {
    const features = new ClientFeatures(fakeHost((_method, params, options) => {
      const token = (params._meta as Record<string, unknown>).progressToken;
      options.onNotification?.("notifications/progress", { progressToken: token, progress: 1, total: 2 });
      options.onNotification?.("notifications/message", { level: "info", data: "on the response stream" });
      return { content: [] };
    }));
    const progress: ProgressUpdate[] = [];
    const logs: LogEntry[] = [];
    features.onLog((entry) => logs.push(entry));
    await features.callTool("t", {}, { onProgress: (p) => progress.push(p) });
    expect(progress).toEqual([{ progress: 1, total: 2 }]);
    expect(logs).toEqual([{ level: "info", data: "on the response stream" }]);
  });

  it("listen events handed to the listen request's onNotification reach the stream", async () => {
    let related: HostRequestOptions["onNotification"];
    let id: unknown;
    const features = new ClientFeatures(fakeHost((_method, _params, options) => {
      related = options.onNotification;
      id = options.id;
      return new Promise(() => {});
    }));
    const changes = features.listen({ tools: true });
    expect(related).toBeTypeOf("function");
    related!("notifications/subscriptions/acknowledged", {
      _meta: { [MetaKeys.subscriptionId]: id },
      notifications: { toolsListChanged: true },
    });
    related!("notifications/tools/list_changed", { _meta: { [MetaKeys.subscriptionId]: id } });
    expect(await changes.ready).toEqual({ toolsListChanged: true });
    expect((await changes.next()).value).toEqual({ type: "toolsListChanged" });
  });
});
