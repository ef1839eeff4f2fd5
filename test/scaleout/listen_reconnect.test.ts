/**
 * Our client's `listen()` through nginx in front of three everything replicas sharing Redis
 * (`--redis URL`): when the replica holding the listen stream is SIGKILLed, or SIGTERMed (its
 * graceful result), the stream reopens by itself on another replica, says `resync`, and a later
 * tool-list change made on a third replica reaches it over Redis. nginx names the replica of each
 * response (`X-Upstream-Addr`, deploy's `upstreamHeader`), the readiness signal of which one to stop.
 * Legacy era behind the session pin: the session's replica SIGKILLed, nginx answers the session's
 * requests 404 (its `@replica_gone`), and the client re-initializes on a live replica, subscribes
 * again, and its listen stream yields `resync` and later changes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploy, type Deployment } from "../../examples/deploy/run.mjs";
import type { RunningReplica } from "../../examples/deploy/deploy_kit.mjs";
import { ContextClient } from "../../src/client/context_client.ts";
import { EraCache } from "../../src/client/era_cache.ts";
import type { ChangeStream } from "../../src/client/features/change_stream.ts";
import type { ChangeEvent } from "../../src/client/features/feature_types.ts";
import { httpTransport } from "../../src/http/client/http_client_transport.ts";
import { ensureDist } from "../fixtures/ours/build_dist.ts";
import { type RedisServer, startRedisServer } from "./fixtures/redis_server.ts";
import { join } from "node:path";

const SERVER = join(import.meta.dirname, "../../examples/everything/server.mjs");
/** A generous "no hang" bound (not a timing claim): the default backoff reopens within about 0.5 s. */
const NO_HANG_MS = 20_000;
let logs = "";
const log = (text: string) => void (logs += text);

/** Settles like `promise`, or fails the test after NO_HANG_MS naming `what`. */
function noHang<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not happen within ${NO_HANG_MS} ms\n${logs.slice(-2_000)}`)),
      NO_HANG_MS,
    );
  });
  return Promise.race([promise, hang]).finally(() => clearTimeout(timer));
}

async function nextEvent(stream: ChangeStream, what: string): Promise<ChangeEvent> {
  const next = await noHang(stream.next(), what);
  if (next.done) throw new Error(`The listen stream ended before ${what}`);
  return next.value;
}

describe("listen() through nginx reopens on another replica when its replica goes away", () => {
  let redis: RedisServer;
  let deployment: Deployment;
  let client: ContextClient;
  const reports: Error[] = [];
  /** The replica port of each `subscriptions/listen` response, in order. */
  const listenPorts: string[] = [];

  beforeAll(async () => {
    ensureDist(); // the everything server imports the package's dist/
    redis = await startRedisServer();
    deployment = await deploy({
      replicas: 3,
      command: [process.execPath, SERVER, "--redis", `redis://127.0.0.1:${redis.port}`],
      upstreamKeepaliveTimeoutSeconds: 1,
      upstreamHeader: true,
      log,
    });
    const spy = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const response = await fetch(input, init);
      if (new Headers(init?.headers).get("mcp-method") === "subscriptions/listen" && response.ok) {
        listenPorts.push(
          response.headers.get("x-upstream-addr")?.split(",").at(-1)?.trim().split(":").at(-1) ?? "?",
        );
      }
      return response;
    };
    client = await ContextClient.connect(httpTransport(`${deployment.url}/mcp`, { fetch: spy }), {
      eraCache: new EraCache(),
      onReport: (e) => reports.push(e),
    });
    expect(client.era).toBe("modern");
  });
  afterAll(async () => {
    await client?.close();
    await deployment?.stop();
    await redis?.kill();
  });

  const replicaOnPort = (port: string | undefined): RunningReplica => {
    const replica = deployment.replicas.find((r) => String(r.port) === port);
    if (!replica) throw new Error(`No replica on port ${port} (listen ports: ${listenPorts.join(", ")})`);
    return replica;
  };

  /** Makes a tool-list change on `replica` directly (not through nginx). */
  async function changeToolsOn(replica: RunningReplica): Promise<void> {
    const direct = await ContextClient.connect(httpTransport(`http://127.0.0.1:${replica.port}/mcp`), {
      eraCache: new EraCache(),
      onReport: () => {},
    });
    try {
      expect(JSON.stringify(await direct.callTool("test_trigger_tool_change"))).toContain(
        "Mutation triggered",
      );
    } finally {
      await direct.close();
    }
  }

  it("SIGKILL of the replica holding the stream: it reopens on another replica, says resync, and a later change made on a third reaches it over Redis", async () => {
    const changes = client.listen({ tools: true });
    expect(await noHang(changes.ready, "the first acknowledgement")).toMatchObject({
      toolsListChanged: true,
    });
    const holder = replicaOnPort(listenPorts.at(-1));
    expect(await holder.stop("SIGKILL")).toEqual({ code: null, signal: "SIGKILL" });

    expect(await nextEvent(changes, "resync after the SIGKILL")).toEqual({ type: "resync" });
    const next = replicaOnPort(listenPorts.at(-1));
    expect(next.name).not.toBe(holder.name);
    expect(
      reports.some((e) => /Listen stream .* broke off .*reopening it/.test(e.message)),
      reports.map(String).join("\n"),
    ).toBe(true);

    const third = deployment.replicas.find((r) => r !== holder && r !== next)!;
    await changeToolsOn(third);
    expect(await nextEvent(changes, "the tool-list change over Redis")).toEqual({ type: "toolsListChanged" });
    await changes.close();
  });

  it("SIGTERM of the replica holding the stream: its graceful result reopens the stream on the last replica, which then reports a change", async () => {
    const changes = client.listen({ tools: true });
    await noHang(changes.ready, "the first acknowledgement");
    const holder = replicaOnPort(listenPorts.at(-1));
    const stopped = holder.stop("SIGTERM");

    expect(await nextEvent(changes, "resync after the SIGTERM")).toEqual({ type: "resync" });
    expect(changes.endReason).toBeUndefined();
    expect(await stopped).toEqual({ code: 0, signal: null });
    const survivor = replicaOnPort(listenPorts.at(-1));
    expect(survivor.name).not.toBe(holder.name);
    await changeToolsOn(survivor);
    expect(await nextEvent(changes, "the tool-list change")).toEqual({ type: "toolsListChanged" });
    await changes.close();
  });
});

describe("a legacy listen behind the session pin survives its replica's SIGKILL", () => {
  let redis: RedisServer;
  let deployment: Deployment;
  let client: ContextClient;
  const sessions: string[] = [];
  let getOpened!: () => void;
  /** Resolves once the session's GET stream (where legacy change notifications come) is open. */
  const getOpen = new Promise<void>((resolve) => (getOpened = resolve));

  beforeAll(async () => {
    ensureDist();
    redis = await startRedisServer();
    deployment = await deploy({
      replicas: 3,
      sessions: true,
      command: [process.execPath, SERVER, "--redis", `redis://127.0.0.1:${redis.port}`],
      upstreamKeepaliveTimeoutSeconds: 1,
      log,
    });
    const spy = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const response = await fetch(input, init);
      const session = response.headers.get("mcp-session-id");
      if (session !== null && session !== sessions.at(-1)) sessions.push(session);
      if (init?.method === "GET" && response.ok) getOpened();
      return response;
    };
    client = await ContextClient.connect(httpTransport(`${deployment.url}/mcp`, { fetch: spy }), {
      era: "legacy",
      eraCache: new EraCache(),
      onReport: (e) => log(`report: ${e.message}\n`),
    });
  });
  afterAll(async () => {
    await client?.close();
    await deployment?.stop();
    await redis?.kill();
  });

  it("re-initializes on a live replica after nginx's 404 for the lost session, says resync, and gets a later change over Redis", async () => {
    const changes = client.listen({ tools: true });
    expect(await noHang(changes.ready, "the legacy listen")).toEqual({ toolsListChanged: true });
    await noHang(getOpen, "the GET stream");
    const holder = deployment.replicas.find((r) => sessions[0]!.startsWith(`${r.name}.`))!;
    expect(await holder.stop("SIGKILL")).toEqual({ code: null, signal: "SIGKILL" });

    expect(await nextEvent(changes, "resync after the SIGKILL")).toEqual({ type: "resync" });
    expect(sessions.length).toBe(2);
    expect(sessions[1]!.split(".")[0]).not.toBe(holder.name);
    const other = deployment.replicas.find((r) => r !== holder && !sessions[1]!.startsWith(`${r.name}.`))!;
    const direct = await ContextClient.connect(httpTransport(`http://127.0.0.1:${other.port}/mcp`), {
      eraCache: new EraCache(),
      onReport: () => {},
    });
    try {
      await direct.callTool("test_trigger_tool_change");
    } finally {
      await direct.close();
    }
    expect(await nextEvent(changes, "the tool-list change over Redis")).toEqual({ type: "toolsListChanged" });
    await changes.close();
  });
});
