/**
 * `SessionGetStream`: `GET` on a legacy session: its one stream of messages unrelated to any request
 * (`Accept: text/event-stream`, 409 for a second one, 429 past the long-stream bound), resumable
 * with `Last-Event-ID` when the endpoint keeps events.
 * @module
 */
import { CancelledError } from "../../../wire/errors.ts";
import { httpError } from "../../http_errors.ts";
import { conflict, tooManyStreams } from "../endpoint_responses.ts";
import type { LongStreams } from "../long_streams.ts";
import { accepts, type RequestParts } from "../request_parts.ts";
import { SseStream, type SseStreamOptions } from "../sse/sse_stream.ts";
import type { LegacySessions } from "./legacy_sessions.ts";
import type { ResumableSessionStreams } from "./resumable_session_streams.ts";

/** What a {@linkcode SessionGetStream} works with. */
export interface SessionGetStreamParts {
  sessions: LegacySessions;
  streams: LongStreams;
  sse: SseStreamOptions;
  /** The resumable streams, when the endpoint keeps events. */
  resumable: ResumableSessionStreams | undefined;
}

/**
 * Answers `GET` on sessions.
 *
 * @example
 * ```ts
 * declare const sessions: LegacySessions, streams: LongStreams, request: RequestParts;
 * const getStream = new SessionGetStream({ sessions, streams, sse: {}, resumable: undefined });
 * const response = await getStream.get(request);
 * ```
 */
export class SessionGetStream {
  readonly #parts: SessionGetStreamParts;

  constructor(parts: SessionGetStreamParts) {
    this.#parts = parts;
  }

  /** The session's GET stream, a resumed one, or the refusal. */
  async get(request: RequestParts): Promise<Response> {
    const { sessions, streams, resumable } = this.#parts;
    if (!accepts(request, ["text/event-stream"])) {
      return httpError("notAcceptable", undefined, {
        message: "Not Acceptable: a GET stream needs Accept: text/event-stream",
      });
    }
    const found = await sessions.find(request, undefined);
    if (found instanceof Response) return found;
    const lastEventId = request.headers.get("last-event-id");
    if (resumable && lastEventId !== null) return resumable.resume(found, lastEventId);
    if (found.hasGetStream) return conflict(`Conflict: session ${found.id} already has a GET stream open`);
    if (streams.full) return tooManyStreams(undefined, streams.max);
    let response: Response;
    if (resumable) {
      const stream = resumable.open(found);
      found.attachGetStream(stream);
      streams.count(stream);
      response = stream.response();
    } else {
      const stream = new SseStream(this.#parts.sse);
      found.attachGetStream(stream);
      streams.count(stream);
      request.signal.addEventListener(
        "abort",
        () => stream.abort(new CancelledError("The client closed the GET stream")),
        { once: true },
      );
      response = stream.response();
    }
    if (streams.draining) found.closeGetStream();
    return response;
  }
}
