/**
 * `StreamReply`: an SSE response a handler may resolve with in place of a `Response` when the request
 * said `TAKES_TEXT_REPLY` (serve() on Node), as {@linkcode TextReply} is for a JSON one. The server
 * writes its frames as it takes them: no web `Response`, `Headers` or `ReadableStream` is built, which
 * is most of what an idle listen stream held.
 * @module
 */
import type { HeaderFields } from "../../http_errors.ts";
import { TextReply } from "../request_parts.ts";
import { SSE_HEADERS, type SseStream } from "./sse_stream.ts";

/** Where a {@linkcode StreamReply}'s frames come from: an {@linkcode SseStream} is one. */
export type FrameSource = Pick<SseStream, "nextFrame" | "pollFrame" | "cancel" | "response">;

/**
 * An SSE reply whose frames the server takes one at a time from `source` (`nextFrame`, or
 * `pollFrame` with no promise per wait; `undefined` ends it; a failure cuts the response) and whose reader going away it reports with `source.cancel(reason)`.
 * A {@linkcode TextReply} with no text, so it travels wherever a `TextReply` may; a server that
 * takes one checks for this first.
 */
export class StreamReply extends TextReply {
  readonly source: FrameSource;

  constructor(source: FrameSource, fields?: HeaderFields) {
    super(200, sseHeaders(fields), "");
    this.source = source;
  }

  /** The same reply as a web `Response` with the stream as body. */
  override toResponse(): Response {
    return this.source.response({ headers: this.headers });
  }
}

/** One frozen record for the SSE headers without extra fields. */
const SSE_HEADER_RECORD: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(Object.entries(SSE_HEADERS).map(([name, value]) => [name.toLowerCase(), value])),
);

/** `fields` and the SSE headers, as a record with lower-case names. */
function sseHeaders(fields: HeaderFields | undefined): Readonly<Record<string, string>> {
  if (fields === undefined) return SSE_HEADER_RECORD;
  const record: Record<string, string> = Object.fromEntries(new Headers(fields));
  return Object.assign(record, SSE_HEADER_RECORD);
}
