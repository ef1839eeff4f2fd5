import { describe, expect, it } from "vitest";
import { JsonRpcConnection, nestChannelOptions } from "../../../src/rpc/json_rpc_connection.ts";
import { createDuplexPair } from "../../../testing/duplex_pair.ts";
import { FakeTimeProvider } from "../../../testing/fake_time_provider.ts";
import { checkConnectionNesting } from "../../../src/rpc/connection_options.ts";
import { InvalidOptionError } from "../../../src/wire/errors.ts";
import { ContextServer } from "../../../src/server/context_server.ts";
import { ContextClient } from "../../../src/client/context_client.ts";

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

describe("checkConnectionNesting (ContextServer and ContextClient options)", () => {
  it("refuses a connection bound at the top level, naming where it belongs, on the server and the client", async () => {
    const info = { name: "t", version: "1" };
    expect(() => new ContextServer({ ...info, maxConcurrentRequests: 4 } as never)).toThrow(
      new InvalidOptionError(
        "Option maxConcurrentRequests belongs under connection: { maxConcurrentRequests } (options nest by layer)",
      ),
    );
    expect(() => new ContextServer({ ...info, connection: 5 } as never)).toThrow(
      "Option connection must be an object",
    );
    const [a] = createDuplexPair();
    await expect(ContextClient.connect(a, { drainTimeout: 1 } as never)).rejects.toThrow(
      "Option drainTimeout belongs under connection: { drainTimeout }",
    );
  });

  it("takes the same bounds under connection, and other options beside it", () => {
    expect(() => checkConnectionNesting({ era: "auto" }, { maxConcurrentRequests: 4 })).not.toThrow();
    expect(() => checkConnectionNesting({}, undefined)).not.toThrow();
    expect(() => checkConnectionNesting({ shutdownTimeout: 1 }, undefined)).toThrow(InvalidOptionError);
  });
});
