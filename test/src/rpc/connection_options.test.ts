import { describe, expect, it } from "vitest";
import { JsonRpcConnection, nestChannelOptions } from "../../../src/rpc/json_rpc_connection.ts";
import { createDuplexPair } from "../../../testing/duplex_pair.ts";
import { FakeTimeProvider } from "../../../testing/fake_time_provider.ts";

describe("JsonRpcConnectionOptions nest by layer", () => {
  it("builds its channel from `channel`, with its own timeProvider and shutdownTimeout flowing down", async () => {
    const time = new FakeTimeProvider();
    const [a] = createDuplexPair();
    const connection = new JsonRpcConnection(a, {
      timeProvider: time,
      channel: { maxMessageBytes: 1234, writeBlockBytes: 99 },
    });
    expect(connection.channel.maxMessageBytes).toBe(1234);
    expect(connection.channel.writeBlockBytes).toBe(99);
    await connection.abort();
  });

  it("moves flat channel bounds under `channel`, where an explicit entry wins, and leaves the rest alone", () => {
    const onReport = () => {};
    const nested = nestChannelOptions({
      maxMessageBytes: 10,
      writeBlockBytes: 5,
      maxConcurrentRequests: 3,
      onReport,
      channel: { writeBlockBytes: 7 },
    });
    expect(nested).toEqual({
      maxConcurrentRequests: 3,
      onReport,
      channel: { maxMessageBytes: 10, writeBlockBytes: 7 },
    });
    const plain = { maxConcurrentRequests: 3 };
    expect(nestChannelOptions(plain)).toBe(plain);
  });
});
