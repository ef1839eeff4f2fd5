/**
 * `writeStreamReply`: how serve() on Node writes a {@linkcode StreamReply} (an SSE response such as a
 * listen stream): the head at once, then each frame as the stream gives it, waiting for `'drain'`.
 * No web `Response`, `ReadableStream`, reader, `AbortSignal`, listener or suspended async function
 * is made for it: an idle stream holds the Node response, the stream, and one small writer object
 * that the stream and the response's {@linkcode Disconnect} point to.
 * @module
 */
import type { OutgoingHttpHeaders, ServerResponse } from "node:http";
import { type FrameReader, NO_FRAME_YET } from "../../src/http/server/sse/sse_stream.ts";
import type { FrameSource, StreamReply } from "../../src/http/server/sse/stream_reply.ts";
import type { TrackedRequest } from "../_http/in_flight_requests.ts";
import type { Disconnect, DisconnectWatcher } from "./_disconnect.ts";
import { drained } from "./_drained.ts";

/**
 * Writes `reply` to `res` until its stream ends (then ends the response) or fails (then cuts it),
 * and finishes `tracked` then. Returns once the head is written (it throws only if the head is
 * bad); the frames follow as they come. The client going away (`disconnect`) cancels the stream;
 * so does a drain ending the request (`tracked`), which also cuts the response.
 */
export function writeStreamReply(
  reply: StreamReply,
  res: ServerResponse,
  tracked: TrackedRequest,
  disconnect: Disconnect,
): void {
  const head: (string | number)[] = [];
  for (const name in reply.headers) head.push(name, reply.headers[name]!);
  res.writeHead(reply.status, head as unknown as OutgoingHttpHeaders);
  res.flushHeaders();
  const writer = new StreamWriter(reply.source, res, tracked);
  disconnect.watch(writer);
  if (res.closed) return writer.finish();
  if (!tracked.ended) tracked.onEnd = writer.end;
  writer.pump();
}

/** Moves frames from the stream to the response; waits as the stream's {@linkcode FrameReader}. */
class StreamWriter implements FrameReader, DisconnectWatcher {
  readonly #source: FrameSource;
  readonly #res: ServerResponse;
  readonly #tracked: TrackedRequest;
  #finished = false;

  constructor(source: FrameSource, res: ServerResponse, tracked: TrackedRequest) {
    this.#source = source;
    this.#res = res;
    this.#tracked = tracked;
  }

  /** Writes the frames there are, until the stream has none (it calls frameReady later) or the client is slow. */
  pump(): void {
    const res = this.#res;
    while (!this.#finished) {
      let frame: Uint8Array | undefined | typeof NO_FRAME_YET;
      try {
        frame = this.#source.pollFrame(this);
      } catch (error) {
        // The stream failed (cancelled, ended by shutdown, or its producer errored): the client sees a cut response.
        res.destroy(error instanceof Error ? error : undefined);
        return this.finish();
      }
      if (frame === NO_FRAME_YET) return;
      if (frame === undefined) {
        res.end();
        return this.finish();
      }
      if (!res.write(frame)) {
        void drained(res).then(() => (res.closed ? this.finish() : this.pump()));
        return;
      }
      if (res.closed) return this.finish();
    }
  }

  /** A frame came (or the stream ended or failed): pump in a microtask, outside the stream's own write. */
  frameReady(): void {
    queueMicrotask(() => this.pump());
  }

  /** The client went away before the response finished: the stream's work stops. */
  disconnected(reason: Error): void {
    this.#source.cancel(reason);
  }

  /** A drain ended the request: the handler sees the cancel, the client a cut response. */
  readonly end = (reason: Error): void => {
    this.#source.cancel(reason);
    this.#res.destroy(reason);
  };

  finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#tracked.finish();
  }
}
