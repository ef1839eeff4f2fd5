/**
 * `ComposedServer`: one MCP server in front of many. Each upstream is mounted under a name: its
 * tools and prompts appear as `{name}_{tool}`, its resources under their own URIs (or
 * `{name}+{uri}`), and everything it offers is forwarded, both eras, both ways. Serve it like any
 * `ContextServer`: over stdio, a stream, or `createHttpHandler`.
 * @module
 */
import { ClientInputs } from "../client/client_inputs.ts";
import { ContextClient, type ContextClientOptions } from "../client/context_client.ts";
import type { ExchangeTransport } from "../client/exchange_transport.ts";
import { ContextServer, type ContextServerOptions } from "../server/context_server.ts";
import type { ClientTransport } from "../rpc/transport.ts";
import type { Duplex } from "../stream/duplex.ts";
import { InvalidOptionError } from "../wire/errors.ts";
import { ConcurrencyLimit } from "./concurrency_limit.ts";
import { inProcessTransport } from "./in_process_transport.ts";
import { MountedServer, type MountOptions } from "./mounted_server.ts";

/** What can be mounted: a server in this process, a connected client (not closed on unmount), or a transport to connect. */
export type MountSource = ContextServer | ContextClient | ClientTransport | ExchangeTransport | Duplex;

/** Options of {@linkcode ComposedServer}: those of `ContextServer`, and the composer's. */
export interface ComposedServerOptions extends ContextServerOptions {
  /**
   * List calls to upstreams pending at once, across every mount.
   * @default 8
   */
  maxConcurrentLists?: number;
  /**
   * Options of the clients the composer connects (era, timeouts, bounds).
   * @default `{ era: "auto", eraCache: null }` (with the composer's `clientInfo`)
   */
  client?: Omit<ContextClientOptions, "inputs">;
}

/** Mount names: letters, digits and `-` (the `_` separates the name from the tool). Empty: no prefix. */
const MOUNT_NAME = /^[A-Za-z0-9-]{0,64}$/;

/**
 * A server that mounts other servers.
 *
 * @example
 * ```ts
 * declare const weatherServer: ContextServer; // an in-process server
 * const composed = new ComposedServer({ name: "gateway", version: "1.0.0" });
 * await composed.mount("weather", weatherServer);
 * // composed.mount("files", httpTransport("https://example.com/mcp")), or a spawned process…
 * ```
 */
export class ComposedServer extends ContextServer {
  readonly #mounts = new Map<string, MountedServer>();
  readonly #limit: ConcurrencyLimit;
  readonly #clientOptions: Omit<ContextClientOptions, "inputs">;
  readonly #reportError: (error: Error) => void;

  constructor(options: ComposedServerOptions) {
    const { maxConcurrentLists, client, ...server } = options;
    super(server);
    this.#limit = new ConcurrencyLimit(maxConcurrentLists ?? 8);
    this.#clientOptions = client ?? {};
    // A downstream client's roots changed: each legacy upstream is told (it asks for them again,
    // through a request in flight); modern upstreams ask per request anyway.
    this.onNotification("notifications/roots/list_changed", () => {
      for (const mounted of this.#mounts.values()) {
        if (mounted.client.era !== "legacy") continue;
        mounted.client.notify("notifications/roots/list_changed").catch((error: unknown) =>
          this.#reportError(error instanceof Error ? error : new Error(String(error)))
        );
      }
    });
    this.#reportError = (error) => {
      try {
        options.onReport?.(error);
      } catch {
        // nowhere further to report to
      }
    };
  }

  /** The mounted servers, by name. */
  get mounts(): ReadonlyMap<string, MountedServer> {
    return this.#mounts;
  }

  /** The list calls' concurrency limit. */
  get listLimit(): ConcurrencyLimit {
    return this.#limit;
  }

  /**
   * Connects `source` (unless it is a connected client), lists what it offers and shows it under
   * `name` (`""`: unprefixed). Resolves once everything is registered.
   */
  async mount(name: string, source: MountSource, options: MountOptions = {}): Promise<MountedServer> {
    if (typeof name !== "string" || !MOUNT_NAME.test(name)) {
      throw new InvalidOptionError(
        `Mount name ${
          JSON.stringify(name)
        } must be letters, digits and -, at most 64 (or empty for no prefix)`,
      );
    }
    if (this.#mounts.has(name)) {
      throw new InvalidOptionError(`A server is already mounted as ${JSON.stringify(name)}`);
    }
    const late: { mounted?: MountedServer } = {}; // the inputs are made before the mount they serve
    const ask = () => {
      if (!late.mounted) throw new Error("Not mounted yet");
      return late.mounted.asker();
    };
    let client: ContextClient;
    const owned = !(source instanceof ContextClient);
    if (source instanceof ContextClient) client = source;
    else {
      // What the upstream asks its client goes to the downstream client of a request in flight.
      const inputs = new ClientInputs()
        .onElicit((params) => ask().elicit(params), { modes: ["form", "url"] })
        .onSample((params) => ask().sample(params))
        .onListRoots(() => ask().listRoots());
      const transport = source instanceof ContextServer
        ? inProcessTransport(source, this.#reportError)
        : source;
      client = await ContextClient.connect(transport as ClientTransport, {
        era: "auto",
        eraCache: null,
        clientInfo: { name: `${this.serverInfo.name}-composer`, version: this.serverInfo.version },
        onReport: this.#reportError,
        ...this.#clientOptions,
        inputs,
      });
    }
    const mounted = late.mounted = new MountedServer(name, client, {
      server: this,
      limit: this.#limit,
      report: this.#reportError,
      owned,
    }, options);
    this.#mounts.set(name, mounted);
    try {
      await mounted.start();
    } catch (error) {
      this.#mounts.delete(name);
      await mounted.close();
      throw error;
    }
    return mounted;
  }

  /** Takes the server mounted as `name` off (its tools, prompts and resources go) and closes what the composer connected. */
  async unmount(name: string): Promise<void> {
    const mounted = this.#mounts.get(name);
    if (!mounted) return;
    this.#mounts.delete(name);
    await mounted.close();
  }

  /** Unmounts everything, then closes the server. */
  override async close(): Promise<void> {
    await Promise.allSettled([...this.#mounts.keys()].map((name) => this.unmount(name)));
    await super.close();
  }
}

/**
 * A plain proxy: one upstream, nothing renamed (a `ComposedServer` with one unprefixed mount).
 *
 * @example
 * ```ts
 * declare const upstreamServer: ContextServer;
 * const proxy = await createProxy(upstreamServer, { name: "proxy", version: "1.0.0" });
 * ```
 */
export async function createProxy(
  source: MountSource,
  options: ComposedServerOptions,
): Promise<ComposedServer> {
  const proxy = new ComposedServer(options);
  await proxy.mount("", source);
  return proxy;
}
