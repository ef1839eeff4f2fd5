/**
 * `LegacySessions`: the legacy sessions (`Mcp-Session-Id`) of one endpoint: the table of those live
 * here, each found by a request's header (404 for an unknown one or another principal's), adopted
 * from the session store when another replica made it, saved there when its state changes, and
 * ended by `DELETE`; replies relayed from other replicas settle here.
 * @module
 */
import type { TimeProvider } from "../../../stream/time_provider.ts";
import { asError, ClosedError } from "../../../wire/errors.ts";
import { errorResponse, type RequestId } from "../../../wire/json_rpc_message.ts";
import { JsonText } from "../../../wire/json_text.ts";
import { messageText } from "../../exact_id_text.ts";
import { httpError } from "../../http_errors.ts";
import { McpHeaders } from "../../mcp_request_headers.ts";
import { sessionNotFound, tooManySessions } from "../endpoint_responses.ts";
import type { EventStore } from "../event_store.ts";
import type { HttpDispatcher } from "../http_dispatcher.ts";
import { principalOf, type RequestParts } from "../request_parts.ts";
import type { RelayedReply, ReplyRelay, SessionStore } from "../session_store.ts";
import type { LegacyHttpSession } from "./legacy_http_session.ts";
import type { LegacySessionTable } from "./legacy_session_table.ts";

/** What {@linkcode LegacySessions} works with. */
export interface LegacySessionsParts {
  server: HttpDispatcher;
  table: LegacySessionTable;
  /** Where sessions live between requests (several replicas); none: this replica's memory. */
  store: SessionStore | undefined;
  /** Carries a reply to the replica whose request waits for it. */
  relay: ReplyRelay | undefined;
  /** The event store of resumable streams, told when a session ends by `DELETE`. */
  eventStore: EventStore | undefined;
  time: TimeProvider;
  report: (error: Error) => void;
}

/**
 * The sessions of one endpoint.
 *
 * @example
 * ```ts
 * declare const server: HttpDispatcher, request: RequestParts;
 * declare const parts: Omit<LegacySessionsParts, "server" | "table">; // store, relay, eventStore, time, report
 * const sessions = new LegacySessions({ server, table: new LegacySessionTable(), ...parts });
 * const found = sessions.find(request, undefined); // a session, a 400/404 Response, or a promise of either
 * ```
 */
export class LegacySessions {
  readonly table: LegacySessionTable;
  readonly #server: HttpDispatcher;
  readonly #store: SessionStore | undefined;
  readonly #relay: ReplyRelay | undefined;
  readonly #eventStore: EventStore | undefined;
  readonly #time: TimeProvider;
  /** Where failures with nowhere else to go are reported. */
  readonly report: (error: Error) => void;
  readonly #unsubscribeRelay: (() => void) | undefined;
  /** The state last saved for each session (JSON), to save only what changed. */
  readonly #saved = new WeakMap<LegacyHttpSession, { state: string; at: number }>();

  constructor(parts: LegacySessionsParts) {
    this.table = parts.table;
    this.#server = parts.server;
    this.#store = parts.store;
    this.#relay = parts.relay;
    this.#eventStore = parts.eventStore;
    this.#time = parts.time;
    this.report = parts.report;
    this.#unsubscribeRelay = this.#relay?.subscribe((reply) => this.#relayed(reply));
  }

  /** Live sessions here. */
  get size(): number {
    return this.table.size;
  }

  /** The reply relay, when replies may wait on another replica. */
  get relay(): ReplyRelay | undefined {
    return this.#relay;
  }

  /** A session is live here (new, or adopted from the session store): the server may reach it. */
  register(session: LegacyHttpSession): void {
    const untrack = this.#server.trackSession?.(session);
    if (untrack) session.signal.addEventListener("abort", () => untrack(), { once: true });
  }

  /** Saves `session`'s state when it changed since the last save (or half its TTL went by). */
  persist(session: LegacyHttpSession): void {
    const store = this.#store;
    if (!store || !session.legacy || session.ended) return;
    if (session.legacy.principal !== session.principal) session.legacy.principal = session.principal;
    const state = JSON.stringify(session.legacy);
    const now = this.#time.now();
    const ttl = this.table.idleTimeout;
    const last = this.#saved.get(session);
    if (last && last.state === state && now - last.at < ttl / 2) return;
    this.#saved.set(session, { state, at: now });
    try {
      Promise.resolve(store.save(session.id, session.legacy, ttl)).catch((error: unknown) =>
        this.report(asError(error))
      );
    } catch (error) {
      this.report(asError(error));
    }
  }

  /** A reply another replica could not place: settle it if its request waits here. */
  #relayed(reply: RelayedReply): void {
    this.table.get(reply.sessionId)?.settle(reply.id, reply.outcome);
  }

  /** The session `request` names (`Mcp-Session-Id`); else 400 without the header, 404 for an unknown one. */
  find(
    request: RequestParts,
    id: RequestId | JsonText | undefined,
  ): LegacyHttpSession | Response | Promise<LegacyHttpSession | Response> {
    const table = this.table;
    const sessionId = request.headers.get(McpHeaders.sessionId);
    if (sessionId === null) return httpError("sessionRequired", id);
    const found = table.get(sessionId.trim());
    // Another principal's session answers as one that does not exist: 404, never its existence.
    if (found !== undefined) return found.principal === principalOf(request) ? found : sessionNotFound(id);
    if (this.#store) return this.#adopt(this.#store, table, sessionId.trim(), id, principalOf(request));
    return sessionNotFound(id);
  }

  /** Session `sessionId` from the session store, live here from now on; 404 when the store has none. */
  async #adopt(
    store: SessionStore,
    table: LegacySessionTable,
    sessionId: string,
    id: RequestId | JsonText | undefined,
    principal: string | undefined,
  ): Promise<LegacyHttpSession | Response> {
    let state: Awaited<ReturnType<SessionStore["load"]>>;
    try {
      state = await store.load(sessionId);
    } catch (error) {
      this.report(asError(error));
      const body = errorResponse(
        id instanceof JsonText ? undefined : id,
        -32000,
        `Service unavailable: the session store failed: ${asError(error).message}`,
      );
      return new Response(
        id instanceof JsonText ? messageText(body, id.text) : JSON.stringify(body),
        { status: 503, headers: { "Content-Type": "application/json", "Retry-After": "1" } },
      );
    }
    if (!state || state.principal !== principal) return sessionNotFound(id);
    const raced = table.get(sessionId); // another request of the same session adopted it meanwhile
    if (raced) return raced.principal === principal ? raced : sessionNotFound(id);
    const session = table.adopt(sessionId);
    if (!session) return tooManySessions(id, table.maxSessions);
    session.principal = principal;
    session.legacy = state;
    this.#saved.set(session, { state: JSON.stringify(state), at: this.#time.now() });
    this.register(session);
    return session;
  }

  /** `DELETE`: ends the session `request` names, and forgets it in the session and event stores. */
  async delete(request: RequestParts): Promise<Response> {
    const found = await this.find(request, undefined);
    if (found instanceof Response) return found;
    found.end(new ClosedError(`The client ended session ${found.id} (DELETE)`));
    const forget = [this.#store?.delete(found.id), this.#eventStore?.deleteSession?.(found.id)];
    for (const done of forget) Promise.resolve(done).catch((error: unknown) => this.report(asError(error)));
    return new Response(null, { status: 200 });
  }

  /** Ends the GET stream of every session (they go on; their clients may open another). */
  closeGetStreams(): void {
    for (const session of this.table.values()) session.closeGetStream();
  }

  /** Ends every session with `reason` and stops taking relayed replies. */
  endAll(reason: Error): void {
    this.table.endAll(reason);
    this.#unsubscribeRelay?.();
  }
}
