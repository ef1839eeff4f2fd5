/**
 * `writeStreamReply`: how serve() on Node writes a {@linkcode StreamReply} (an SSE response such as a
 * listen stream): the head at once, then each frame as the stream gives it, waiting for `'drain'`.
 * No web `Response`, `ReadableStream`, reader or `AbortSignal` is made for it: an idle stream holds
 * the Node response, the stream, and one `'close'` listener.
 * @module
 */
import type { OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { StreamReply } from "../../src/http/server/sse/stream_reply.ts";
import { ClosedError } from "../../src/wire/errors.ts";
import type { TrackedRequest } from "../_http/in_flight_requests.ts";
import { drained } from "./_drained.ts";

/**
 * Writes `reply` to `res` until its stream ends (then ends the response) or fails (then cuts it).
 * The client going away cancels the stream; so does a drain ending the request (`tracked`), which
 * also cuts the response.
 */
export async function writeStreamReply(
  reply: StreamReply,
  res: ServerResponse,
  tracked: TrackedRequest,
): Promise<void> {
  const { source } = reply;
  const head: (string | number)[] = [];
  for (const name in reply.headers) head.push(name, reply.headers[name]!);
  res.writeHead(reply.status, head as unknown as OutgoingHttpHeaders);
  res.flushHeaders();
  const gone = (): void => {
    if (!res.writableFinished) source.cancel(new ClosedError("The client closed the connection"));
  };
  if (res.closed) return gone();
  res.once("close", gone);
  if (!tracked.ended) {
    // A drain ends the request: the handler sees the cancel, the client a cut response.
    tracked.onEnd = (reason) => {
      source.cancel(reason);
      res.destroy(reason);
    };
  }
  try {
    for (;;) {
      const frame = await source.nextFrame();
      if (frame === undefined) break;
      if (!res.write(frame)) await drained(res);
      if (res.closed) return;
    }
    res.end();
  } catch (error) {
    // The stream failed (cancelled, ended by shutdown, or its producer errored): the client sees a cut response.
    res.destroy(error instanceof Error ? error : undefined);
  } finally {
    res.off("close", gone);
  }
}
