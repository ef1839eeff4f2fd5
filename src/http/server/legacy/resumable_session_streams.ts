/**
 * `ResumableSessionStreams`: the resumable SSE streams (2025-11-25 "Resumability and Redelivery")
 * of the legacy sessions on one replica: each made with its stream id and known here until it ends,
 * and `GET` with `Last-Event-ID` answered from the live stream or the event store.
 * @module
 */
import { notResumable } from "../endpoint_responses.ts";
import { type EventStore, parseEventId } from "../event_store.ts";
import { ResumableStream, type ResumeOutcome, resumeStored } from "../resumable_stream.ts";
import type { SseStreamOptions } from "../sse/sse_stream.ts";
import type { LegacyHttpSession } from "./legacy_http_session.ts";

/**
 * The resumable streams written on this replica, by stream id (until they end).
 *
 * @example
 * ```ts
 * declare const session: LegacyHttpSession;
 * const streams = new ResumableSessionStreams(new MemoryEventStore(), 1000, {});
 * const stream = streams.open(session);
 * const response = await streams.resume(session, "s1_7"); // the events after it, then live
 * ```
 */
export class ResumableSessionStreams {
  /** Where every event of these streams is kept. */
  readonly store: EventStore;
  readonly #retry: number;
  readonly #sse: SseStreamOptions;
  readonly #live = new Map<string, { stream: ResumableStream; sessionId: string }>();

  constructor(store: EventStore, retry: number, sse: SseStreamOptions) {
    this.store = store;
    this.#retry = retry;
    this.#sse = sse;
  }

  /** A resumable stream of `session`, known here by its id until it ends. */
  open(session: LegacyHttpSession): ResumableStream {
    const stream = new ResumableStream({
      store: this.store,
      sessionId: session.id,
      sse: this.#sse,
      retry: this.#retry,
    });
    this.#live.set(stream.streamId, { stream, sessionId: session.id });
    void stream.closed.then(() => this.#live.delete(stream.streamId));
    return stream;
  }

  /** `GET` with `Last-Event-ID`: the events after it on its stream, then the live ones. */
  async resume(session: LegacyHttpSession, lastEventId: string): Promise<Response> {
    const cursor = parseEventId(lastEventId);
    const live = cursor && this.#live.get(cursor.streamId);
    let outcome: ResumeOutcome;
    if (!cursor) {
      outcome = { kind: "unknown" };
    } else if (live && live.sessionId === session.id) {
      outcome = await live.stream.resume(cursor.seq);
    } else {
      outcome = await resumeStored(this.store, { sessionId: session.id, ...cursor }, {
        sse: this.#sse,
        retry: this.#retry,
      });
    }
    if (outcome.kind === "resumed") return outcome.response;
    return notResumable(
      outcome.kind === "expired"
        ? `Bad Request: the events after Last-Event-ID ${
          JSON.stringify(lastEventId)
        } are no longer kept (the event store's bounds evicted them); the stream cannot be resumed`
        : `Bad Request: Last-Event-ID ${
          JSON.stringify(lastEventId.slice(0, 80))
        } names no stream of this session; the stream cannot be resumed`,
    );
  }
}
