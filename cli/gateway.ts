/**
 * `onemodelcontext serve --http PORT -- COMMAND ARGS`: a stdio MCP server reachable over Streamable
 * HTTP, in both eras. Modern requests (stateless) are all forwarded to one child process over one
 * modern connection; each legacy HTTP session (`Mcp-Session-Id`) gets its own child, connected in the
 * legacy era, which ends with the session (DELETE, idle timeout). Sessions are bounded in count
 * (`--max-sessions`, 429 beyond) and idle time (`--idle`). What a server asks its client crosses
 * too: a legacy child's elicitation, sampling and roots requests go to the HTTP client on the
 * response stream of one of its requests in flight; a modern child sees the HTTP client's
 * capabilities, and its `input_required` results and the client's retries pass through unchanged.
 * @module
 */
import {
  type ClientTransport,
  ContextClient,
  createHttpHandler,
  type DispatchContext,
  type ExchangeTransport,
  type HttpDispatcher,
  type HttpHandler,
  JsonRpcError,
  type ServerSession,
} from "onemodelcontext";
import { hostname, networkInterfaces } from "node:os";
import { serve } from "onemodelcontext/node";
import { LEGACY_VERSIONS, MODERN_VERSIONS, readRequestEnvelope } from "onemodelcontext/protocol";
import type { CliArgs } from "./args.ts";
import { EXIT } from "./args.ts";
import { CLI_VERSION, resolveTarget, transportOf } from "./session.ts";
import { terminalText } from "./terminal_text.ts";
import { DownstreamRoutes, LISTEN_NOTIFICATIONS } from "./downstream_routes.ts";

type Transport = ClientTransport | ExchangeTransport;

/** Notifications the child sends outside requests, passed on to a legacy session's GET stream. */
const UNSOLICITED = [
  "notifications/tools/list_changed",
  "notifications/prompts/list_changed",
  "notifications/resources/list_changed",
  "notifications/resources/updated",
  "notifications/message",
  "notifications/elicitation/complete",
] as const;

/** What a legacy child asks its client (elicitation, sampling, roots), passed on to the HTTP client. */
const SERVER_REQUESTS = ["elicitation/create", "sampling/createMessage", "roots/list"] as const;

function errorReply(id: unknown, error: unknown): Record<string, unknown> {
  if (error instanceof JsonRpcError) {
    return {
      jsonrpc: "2.0",
      id,
      error: {
        code: error.code,
        message: error.message,
        ...(error.data !== undefined ? { data: error.data } : {}),
      },
    };
  }
  return {
    jsonrpc: "2.0",
    id,
    error: {
      code: -32603,
      message: `Gateway: the stdio server could not answer: ${
        error instanceof Error ? error.message : String(error)
      }`,
    },
  };
}

/**
 * Where a child's log message goes. Over stdio a log message names no request; when exactly one
 * request is in flight on that child it surely belongs to it and goes on that request's response
 * stream; otherwise it goes to the legacy session's GET stream, or (modern, several in flight) is
 * reported by the gateway, not guessed.
 */
class InFlight {
  readonly contexts = new Set<DispatchContext>();
  /**
   * Sends a child's server-to-client request to the HTTP client, on the response stream of one of
   * this child's requests in flight (the client answers it by POST, whichever stream carried it).
   * Over stdio the request names none of them; with none in flight there is no way to the client.
   */
  forward(method: string, params: unknown, signal: AbortSignal): Promise<unknown> {
    for (const context of this.contexts) {
      if (context.request) return context.request(method, params, { signal });
    }
    return Promise.reject(
      new JsonRpcError(
        -32603,
        `Gateway: ${method} cannot reach the HTTP client: no request of this session is in flight to carry it`,
      ),
    );
  }
  route(
    method: string,
    params: unknown,
    fallback: ((method: string, params: unknown) => void) | undefined,
  ): void {
    if (this.contexts.size === 1) {
      for (const context of this.contexts) void context.notify(method, params).catch(() => {});
    } else fallback?.(method, params);
  }
}

/** The dispatcher that forwards HTTP messages to stdio children. */
export class GatewayDispatcher implements HttpDispatcher {
  readonly #spawn: () => Transport;
  readonly #report: (text: string) => void;
  #modern: Promise<ContextClient> | undefined;
  readonly #legacy = new Map<ServerSession, Promise<ContextClient>>();
  readonly #inFlight = new WeakMap<ContextClient, InFlight>();
  readonly #routes = new WeakMap<ContextClient, DownstreamRoutes>();
  #modernVersions: readonly string[] = [...MODERN_VERSIONS].sort().reverse();
  readonly #legacyVersions: readonly string[] = [...LEGACY_VERSIONS].sort().reverse();

  constructor(spawn: () => Transport, report: (text: string) => void) {
    this.#spawn = spawn;
    this.#report = report;
  }

  get versions(): HttpDispatcher["versions"] {
    const modern = this.#modernVersions;
    const legacy = this.#legacyVersions;
    return {
      legacy,
      modern,
      advertised: modern.length ? modern : legacy,
      supportsModern: (v: string) => modern.includes(v),
    };
  }

  /** Starts the modern child; a server that speaks only the legacy era is then served in that era only. */
  async start(): Promise<{ era: string; protocolVersion: string }> {
    const client = await this.#modernClient();
    if (client.era !== "modern") {
      this.#modernVersions = [];
      this.#modern = undefined;
      await client.close();
    }
    return { era: client.era, protocolVersion: client.protocolVersion };
  }

  /** Live legacy children. */
  get legacyChildren(): number {
    return this.#legacy.size;
  }

  #modernClient(): Promise<ContextClient> {
    if (this.#modern === undefined) {
      const connecting = ContextClient.connect(this.#spawn(), {
        era: "auto",
        eraCache: null,
        clientInfo: { name: "onemodelcontext-gateway", version: CLI_VERSION },
      });
      this.#modern = connecting;
      void connecting.then((client) => {
        const flight = this.#flight(client);
        const routes = this.#routesOf(client);
        // A listen stream's notifications name their stream (the subscription id): back to its HTTP request only.
        for (const method of LISTEN_NOTIFICATIONS) {
          client.onNotification(method as never, (p: unknown) => void routes.sendListen(method, p));
        }
        client.onNotification(
          "notifications/message" as never,
          (p: unknown) =>
            flight.route("notifications/message", p, () =>
              this.#report(
                `Gateway: a log message while several requests were in flight was not forwarded: ${
                  JSON.stringify(p)
                }`,
              )),
        );
      }, () => {});
      // A child that dies is started again on the next request.
      connecting.then(
        (client) =>
          void client.closed.then(() => {
            if (this.#modern === connecting) this.#modern = undefined;
          }),
        () => {
          if (this.#modern === connecting) this.#modern = undefined;
        },
      );
    }
    return this.#modern;
  }

  trackSession(session: ServerSession): () => void {
    return () => {
      const child = this.#legacy.get(session);
      this.#legacy.delete(session);
      child?.then((c) => c.close()).catch((error: unknown) =>
        this.#report(`Closing a legacy session's server failed: ${String(error)}`)
      );
    };
  }

  async dispatch(message: unknown, context: DispatchContext): Promise<Record<string, unknown> | undefined> {
    const m = message as { id?: unknown; method?: string; params?: Record<string, unknown> };
    if (typeof m.method !== "string") return undefined; // replies to server-to-client requests: none are sent
    const isRequest = m.id !== undefined;
    const session = context.session;
    const legacy = session !== undefined && (m.method === "initialize" || session.legacy !== undefined);
    try {
      if (m.method === "initialize") {
        if (!session) {
          throw new JsonRpcError(
            -32600,
            "Gateway: legacy clients need a session (send initialize without a session id)",
          );
        }
        const params = m.params ?? {};
        const child = ContextClient.connect(this.#spawn(), {
          era: "legacy",
          eraCache: null,
          clientInfo: (params.clientInfo as never) ??
            { name: "onemodelcontext-gateway", version: CLI_VERSION },
          capabilities: (params.capabilities as never) ?? {},
        });
        this.#legacy.set(session, child);
        const client = await child;
        const flight = this.#flight(client);
        for (const method of SERVER_REQUESTS) {
          client.handle(
            method,
            (p: unknown, c: { signal: AbortSignal }) => flight.forward(method, p, c.signal),
          );
        }
        const toSession = (method: string, p: unknown): void =>
          void session.notify?.(method, p)?.catch(() => {});
        for (const method of UNSOLICITED) {
          client.onNotification(
            method as never,
            (
              p: unknown,
            ) => (method === "notifications/message"
              ? flight.route(method, p, toSession)
              : toSession(method, p)),
          );
        }
        session.legacy = {
          protocolVersion: client.protocolVersion,
          clientInfo: params.clientInfo as never,
          clientCapabilities: (params.capabilities as never) ?? {},
        };
        const result: Record<string, unknown> = {
          protocolVersion: client.protocolVersion,
          capabilities: client.serverCapabilities,
          serverInfo: client.serverInfo,
        };
        if (client.instructions !== undefined) result.instructions = client.instructions;
        return { jsonrpc: "2.0", id: m.id, result };
      }
      if (legacy && m.method === "notifications/initialized") {
        session.legacy!.initialized = true;
        return undefined;
      }
      if (m.method === "notifications/cancelled") return undefined; // the request's signal carries it
      const client = legacy ? await this.#legacy.get(session) : await this.#modernClient();
      if (!client) {
        throw new JsonRpcError(-32600, "Gateway: this session has no server (send initialize first)");
      }
      if (!isRequest) {
        await client.notify(m.method, m.params);
        return undefined;
      }
      const flight = this.#flight(client);
      flight.contexts.add(context);
      // Many HTTP clients share a modern child: the progress token (and a listen request's id) of
      // each forwarded request is the gateway's own, so notifications reach the request that caused them.
      const routes = this.#routesOf(client);
      const routed = routes.route(m.method, m.id, m.params, context);
      try {
        // Modern: the HTTP client's capabilities go to the child, and an input_required result goes
        // back as it is; the client's retry (inputResponses, requestState) is passed on like any request.
        const envelope = legacy ? undefined : readRequestEnvelope(m.params);
        const result = await client.request(m.method as never, routed.params as never, {
          signal: context.signal,
          onNotification: routed.onNotification,
          ...(routed.id !== undefined ? { id: routed.id } : {}),
          ...(envelope?.kind === "envelope"
            ? { inputRequired: "manual", clientCapabilities: envelope.envelope.clientCapabilities }
            : {}),
        });
        return { jsonrpc: "2.0", id: m.id, result: routes.restoreResult(routed, result) };
      } finally {
        routed.done();
        flight.contexts.delete(context);
      }
    } catch (error) {
      if (!isRequest) {
        this.#report(
          `Gateway: notification ${m.method} failed: ${
            error instanceof Error ? error.message : String(error)
          }`,
        );
        return undefined;
      }
      return errorReply(m.id, error);
    }
  }

  #routesOf(client: ContextClient): DownstreamRoutes {
    let routes = this.#routes.get(client);
    if (!routes) this.#routes.set(client, routes = new DownstreamRoutes());
    return routes;
  }

  #flight(client: ContextClient): InFlight {
    let flight = this.#inFlight.get(client);
    if (!flight) this.#inFlight.set(client, flight = new InFlight());
    return flight;
  }

  /** Closes every child. */
  async close(): Promise<void> {
    const all = [...this.#legacy.values(), ...(this.#modern ? [this.#modern] : [])];
    this.#legacy.clear();
    this.#modern = undefined;
    await Promise.allSettled(all.map((c) => c.then((client) => client.close())));
  }
}

/** Names this machine answers to when bound to a wildcard address (`0.0.0.0`, `::`). */
function localNames(): string[] {
  const names = ["localhost", hostname()];
  for (const list of Object.values(networkInterfaces())) {
    for (const entry of list ?? []) {
      names.push(entry.family === "IPv6" ? `[${entry.address}]` : entry.address);
    }
  }
  return names;
}

/**
 * The gateway's HTTP handler at `/mcp`. Bound beyond loopback it accepts the `Host` of its own URL
 * (the bind address; every local address when bound to a wildcard) and no other: a DNS-rebinding
 * page's host name stays refused.
 */
export function gatewayHandler(dispatcher: HttpDispatcher, http: NonNullable<CliArgs["http"]>): HttpHandler {
  const bare = http.host.replace(/^\[(.*)\]$/, "$1");
  const wildcard = bare === "0.0.0.0" || bare === "::";
  const own = bare.includes(":") ? `[${bare}]` : bare;
  return createHttpHandler(dispatcher, {
    path: "/mcp",
    bindAddress: http.host,
    ...(isLoopbackName(bare) ? {} : { allowedHosts: wildcard ? localNames() : [own] }),
    sessions: { maxSessions: http.maxSessions, idleTimeout: http.idleSeconds * 1000 },
  });
}

function isLoopbackName(name: string): boolean {
  return name === "localhost" || name === "::1" || /^127\.\d+\.\d+\.\d+$/.test(name);
}

/** Runs the gateway until SIGINT or SIGTERM. */
export async function runGateway(args: CliArgs): Promise<number> {
  if (args.target.kind === "config" && args.target.server === undefined) {
    const { runComposeGateway } = await import("./compose_gateway.ts");
    return await runComposeGateway(args);
  }
  const target = resolveTarget(args.target);
  if (target.kind !== "stdio") {
    process.stderr.write(
      "The serve command needs a stdio server (-- COMMAND ARGS, or a config entry with a command)\n",
    );
    return EXIT.usage;
  }
  const http = args.http!;
  const log = (text: string): void => {
    if (!args.quiet) process.stderr.write(`${terminalText(text)}\n`);
  };
  const dispatcher = new GatewayDispatcher(() => transportOf(target), log);
  let started;
  try {
    started = await dispatcher.start();
  } catch (error) {
    process.stderr.write(
      `The stdio server did not start: ${
        terminalText(error instanceof Error ? error.message : String(error), { multiline: true })
      }\n`,
    );
    await dispatcher.close();
    return EXIT.connect;
  }
  const handler = gatewayHandler(dispatcher, http);
  let server;
  try {
    server = await serve(handler, { port: http.port, hostname: http.host });
  } catch (error) {
    process.stderr.write(
      `Cannot listen on ${terminalText(http.host)}:${http.port}: ${
        terminalText(error instanceof Error ? error.message : String(error))
      }\n`,
    );
    await dispatcher.close();
    return EXIT.connect;
  }
  const url = new URL("/mcp", server.url).href;
  log(
    `serving ${url} (the stdio server speaks ${
      started.era === "modern" ? "the modern era: modern requests share one process" : "only the legacy era"
    }; ` +
      `legacy sessions get a process each, at most ${http.maxSessions}, ended after ${http.idleSeconds} s idle)`,
  );
  if (args.json) process.stdout.write(`${JSON.stringify({ url })}\n`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  log("stopping: closing HTTP and every server process");
  await server.close();
  await dispatcher.close();
  return EXIT.ok;
}
