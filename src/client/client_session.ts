/**
 * A {@linkcode ContextClient}'s session from open to close: settled by an exchange transport's own
 * negotiation (HTTP) or by the era negotiation over a stream, and closed with the connections it
 * gave up on along the way.
 * @module
 */
import { asError, ProtocolError } from "../wire/errors.ts";
import type { IncomingRequest } from "../wire/json_rpc_message.ts";
import type { JsonRpcConnection, RequestContext } from "../rpc/json_rpc_connection.ts";
import type { TimeProvider } from "../stream/time_provider.ts";
import type { ClientTransport, TransportConnection } from "../rpc/transport.ts";
import {
  EraNegotiator,
  type LiveConnection,
  type NegotiatedSession,
  type NegotiationSettings,
} from "./era_negotiation.ts";
import { type ExchangeSession, type ExchangeTransport, isExchangeTransport } from "./exchange_transport.ts";
import { StreamClientExchange } from "./stream_client_exchange.ts";
import type { ClientConnectionOptions, ConnectSettings } from "./context_client_options.ts";
import type { Capabilities } from "../wire/protocol_versions.ts";
import type { ServerMessageRouter } from "./server_message_router.ts";

/** A stream session, or an exchange transport's (HTTP), which has no JSON-RPC connection underneath. */
export type ClientSession =
  | NegotiatedSession
  | (Omit<ExchangeSession, "exchange"> & {
    live: { exchange: ExchangeSession["exchange"]; rpc?: undefined; transport?: undefined };
  });

/** The session's JSON-RPC connection; an exchange transport's session has none and throws `ProtocolError`. */
export function connectionOf(session: ClientSession): JsonRpcConnection {
  const { rpc } = session.live;
  if (rpc === undefined) {
    throw new ProtocolError(
      "This client has no JsonRpcConnection: it talks through an exchange transport (HTTP)",
    );
  }
  return rpc;
}

/** What {@linkcode openStreamConnection} wires the new connection to. */
export interface StreamConnectionOptions {
  /** The connection's bounds (`answerInvalidInput` defaults to `false` here). */
  connection: ClientConnectionOptions | undefined;
  timeProvider: TimeProvider;
  report(error: Error): void;
  onRequest(request: IncomingRequest, context: RequestContext): unknown;
  onNotification(method: string, params: unknown): unknown;
}

/** Opens a connection through `source` and starts a {@linkcode StreamClientExchange} on it. */
async function openStreamConnection(
  source: ClientTransport,
  options: StreamConnectionOptions,
): Promise<LiveConnection> {
  const transport = await source.open();
  const exchange = new StreamClientExchange(transport, {
    connection: {
      // A server's stray stdout lines are reported, never answered (unless the caller asks).
      answerInvalidInput: false,
      ...options.connection,
      timeProvider: options.timeProvider,
      onReport: options.report,
    },
    onRequest: options.onRequest,
    onNotification: options.onNotification,
  });
  exchange.connection.start();
  return { transport, exchange, rpc: exchange.connection, used: false };
}

/** What opening a session needs beyond the transport: the connect settings, and where server messages go. */
export interface OpenSessionSettings extends ConnectSettings {
  cacheKey: string | undefined;
  /** The capabilities to declare. */
  capabilities: Capabilities;
  /** The stream connection's bounds. */
  connection: ClientConnectionOptions | undefined;
  router: ServerMessageRouter;
  /** Server messages may have been lost (see `ExchangeConnectSettings.onResync`). */
  onResync(info: { sessionLost: boolean }): void;
}

/**
 * Opens a session (an exchange transport's own negotiation, or the era negotiation over a stream)
 * and closes whatever session the client holds. Connections given up
 * on (a respawn, a failed connect) are released in the background; `close` waits for them.
 */
export class SessionLifecycle {
  readonly #report: (error: Error) => void;
  readonly #background = new Set<Promise<unknown>>();
  #transportClosing: Promise<void> | undefined;

  constructor(report: (error: Error) => void) {
    this.#report = report;
  }

  /** Connects through `source` and settles the era; rejects as `ContextClient.connect` says. */
  async open(source: ExchangeTransport | ClientTransport, s: OpenSessionSettings): Promise<ClientSession> {
    const { router, cache, cacheKey, clientInfo, capabilities, time } = s;
    if (isExchangeTransport(source)) {
      const session = await source.connectExchange({
        era: s.era,
        clientInfo,
        capabilities,
        time,
        connectTimeout: s.connectTimeout,
        cache,
        cacheKey,
        report: this.#report,
        onRequest: (request, context) => router.dispatchRequest(request, context),
        onNotification: (method, params) => router.dispatchNotification(method, params),
        onResync: s.onResync,
      });
      return { ...session, live: { exchange: session.exchange } };
    }
    const session = await this.#negotiate({
      era: s.era,
      transport: source,
      open: () =>
        openStreamConnection(source, {
          connection: s.connection,
          timeProvider: time,
          report: this.#report,
          onRequest: (request, context) => router.dispatchRequest(request, context),
          onNotification: (method, params) => router.dispatchNotification(method, params),
        }),
      time,
      probeTimeout: s.probeTimeout,
      processStartupAllowance: s.processStartupAllowance,
      connectTimeout: s.connectTimeout,
      cache,
      cacheKey,
      clientInfo,
      capabilities,
      report: this.#report,
    });
    const { live } = session;
    live.rpc.closed.then(() => this.#closeTransport(live.transport));
    return session;
  }

  /**
   * Runs the era negotiation. On failure the connection in use is released and the background
   * settled before the error goes on.
   */
  async #negotiate(settings: Omit<NegotiationSettings, "discard">): Promise<NegotiatedSession> {
    const negotiator = new EraNegotiator({
      ...settings,
      discard: (live) => this.#track(this.#release(live)),
    });
    try {
      return await negotiator.run();
    } catch (error) {
      const live = negotiator.current;
      if (live) this.#track(this.#release(live));
      await this.#settleBackground();
      throw error;
    }
  }

  /**
   * Closes the connection, then the transport's own graceful close (for a process: stdin EOF, then
   * the adapter's bounded close sequence); an exchange transport's session closes its exchange.
   */
  async close(session: ClientSession): Promise<void> {
    const { live } = session;
    if (live.rpc === undefined) {
      await live.exchange.close();
      return;
    }
    await live.rpc.close();
    await this.#closeTransport(live.transport);
    await this.#settleBackground();
  }

  /** Ends a connection given up on: tear the JSON-RPC peer down, then close the transport. */
  async #release(live: LiveConnection): Promise<void> {
    await live.rpc.abort();
    await live.transport.close?.();
  }

  #closeTransport(transport: TransportConnection): Promise<void> {
    this.#transportClosing ??= (async () => {
      try {
        await transport.close?.();
      } catch (error) {
        this.#report(asError(error));
      }
    })();
    return this.#transportClosing;
  }

  #track(promise: Promise<unknown>): void {
    const tracked = promise.catch((error) => this.#report(asError(error)));
    this.#background.add(tracked);
    void tracked.finally(() => this.#background.delete(tracked));
  }

  async #settleBackground(): Promise<void> {
    while (this.#background.size > 0) await Promise.allSettled([...this.#background]);
  }
}
