/**
 * `ResponseChannel`: the HTTP response of one POSTed request, chosen late: a single JSON object when
 * the reply comes first, or an SSE stream as soon as something has to go out before the reply (a
 * related notification, a server-to-client request).
 * @module
 */
import { CancelledError } from "../../wire/errors.ts";
import { JsonText } from "../../wire/json_text.ts";
import { messageText } from "../exact_id_text.ts";
import type { HeaderFields } from "../http_errors.ts";
import { TextReply } from "./request_parts.ts";
import { SseStream, type SseStreamOptions } from "./sse/sse_stream.ts";
import { StreamReply } from "./sse/stream_reply.ts";
import { retryAfterSecondsOf } from "../../server/middleware/rate_limited_error.ts";

/** Options of {@linkcode ResponseChannel}. */
export interface ResponseChannelOptions {
  /** Extra headers of the response, JSON or SSE (e.g. `Mcp-Session-Id`). */
  headers?: HeaderFields;
  /** Options of the SSE stream, when one is opened (byte bound, keep-alive, clock). */
  sse?: SseStreamOptions;
  /**
   * The HTTP status of a JSON reply. Default 200.
   * @default 200
   */
  statusOf?: (reply: Record<string, unknown>) => number;
  /**
   * A JSON reply as a {@linkcode TextReply} rather than a `Response` (the caller of the handler takes one). Default false.
   * @default false
   */
  textReply?: boolean;
  /**
   * Makes the SSE stream when one is needed, instead of a plain `SseStream` (a resumable stream
   * that stores its events). Default: an `SseStream` with `sse`.
   * @default an `SseStream` with `sse`
   */
  stream?: () => ResponseStream;
  /**
   * The request's id as written, when JSON.parse rounded it (beyond 2^53): the reply carries this
   * text as its `id`. Default none: the reply's own `id`.
   * @default none: the reply's own `id`
   */
  idLiteral?: string;
  /** Called once when the channel is cancelled (the client stopped the SSE stream, or {@linkcode ResponseChannel.abort}), with the reason. */
  onCancel?: (reason: unknown) => void;
}

/** The SSE body of a channel: an `SseStream`, or a stream that outlives its connection. */
export interface ResponseStream {
  /** Sends `message` as one JSON event (a `JsonText` as its text). */
  write(message: unknown): Promise<void>;
  close(): Promise<void>;
  abort(reason?: unknown): void;
  readonly closed: Promise<void>;
  response(init?: ResponseInit): Response;
  /** Ends the connection but not the stream (the client resumes); false when it cannot. */
  detach?(): boolean;
}

/**
 * One request's way back to its client. {@linkcode ResponseChannel.response} settles once the form
 * is known: at the first {@linkcode ResponseChannel.notify}/{@linkcode ResponseChannel.send} (SSE,
 * status 200) or at {@linkcode ResponseChannel.reply} (JSON with `statusOf(reply)`), whichever
 * comes first. Every SSE write waits while the stream holds its byte bound, so a client that does
 * not read holds the producer, not server memory.
 *
 * @example
 * ```ts
 * declare function run(channel: ResponseChannel): Promise<void>; // notify(...) then reply(...)
 * function answer(): Promise<Response | TextReply> {
 *   const channel = new ResponseChannel();
 *   void run(channel);
 *   return channel.response;
 * }
 * ```
 */
export class ResponseChannel {
  /** The response, once its form is known. */
  readonly response: Promise<Response | TextReply>;
  readonly #options: ResponseChannelOptions;
  // The cancel signal is made only when asked for: most requests end with a JSON reply and never need one.
  #cancelled: AbortController | undefined;
  #cancelReason: unknown;
  #isCancelled = false;
  #resolve!: (response: Response | TextReply) => void;
  #settled = false;
  #sse: ResponseStream | undefined;
  #replied = false;

  constructor(options: ResponseChannelOptions = {}) {
    this.#options = options;
    this.response = new Promise((resolve) => (this.#resolve = resolve));
  }

  /** True once the response is an SSE stream. */
  get streaming(): boolean {
    return this.#sse !== undefined;
  }

  /** True once the reply was given (or the channel ended another way). */
  get replied(): boolean {
    return this.#replied;
  }

  /** Aborts when the client stops the SSE stream (cancels the body) or {@linkcode ResponseChannel.abort} is called. */
  get signal(): AbortSignal {
    if (!this.#cancelled) {
      this.#cancelled = new AbortController();
      if (this.#isCancelled) this.#cancelled.abort(this.#cancelReason);
    }
    return this.#cancelled.signal;
  }

  /** Resolves once the SSE stream ended (everything read, or cancelled), at once for a JSON response. */
  get closed(): Promise<void> {
    return this.#sse?.closed ?? Promise.resolve();
  }

  /** Switches to SSE now (a listen or GET stream), without writing anything. */
  openStream(): ResponseStream {
    if (this.#sse) return this.#sse;
    if (this.#settled) {
      throw new CancelledError("The response was already sent as JSON: no stream can be opened");
    }
    const sse = this.#options.stream?.() ??
      new SseStream({ ...this.#options.sse, onCancel: (reason) => this.#cancel(reason) });
    this.#sse = sse;
    // A caller that takes a TextReply (serve() on Node) takes the SSE body as frames: no Response, no web stream.
    this.#settle(
      this.#options.textReply && sse instanceof SseStream
        ? new StreamReply(sse, this.#options.headers)
        : sse.response({ headers: this.#options.headers }),
    );
    return sse;
  }

  /**
   * Sends a notification related to the request, opening the SSE stream if needed. Waits while the
   * stream is full; resolves without sending once the reply was given or the client stopped reading.
   */
  async notify(message: unknown): Promise<void> {
    if (this.#replied || this.#isCancelled) return;
    try {
      await this.openStream().write(message);
    } catch (error) {
      if (error instanceof CancelledError || this.#isCancelled) return; // the client left: nothing to deliver to
      throw error;
    }
  }

  /** Sends a message that must arrive (a server-to-client request): like notify, but rejects once the stream is gone. */
  async send(message: unknown): Promise<void> {
    if (this.#replied) {
      throw new CancelledError("The request was already answered: nothing more can be sent on its response");
    }
    if (this.#isCancelled) this.signal.throwIfAborted();
    await this.openStream().write(message);
  }

  /**
   * The final reply: a JSON response when nothing was streamed, else the last event of the stream,
   * which then ends. Resolves once it is queued (an abandoned stream just drops it). A second reply is ignored.
   */
  async reply(message: Record<string, unknown>): Promise<void> {
    if (this.#replied) return;
    this.#replied = true;
    if (!this.#sse) {
      const retryAfter = retryAfterSecondsOf(message);
      const reply = retryAfter === undefined
        ? new TextReply(
          this.#options.statusOf?.(message) ?? 200,
          jsonHeaders(this.#options.headers),
          messageText(message, this.#options.idLiteral),
        )
        : new TextReply(
          429,
          { ...jsonHeaders(this.#options.headers), "retry-after": String(retryAfter) },
          messageText(message, this.#options.idLiteral),
        );
      this.#settle(this.#options.textReply ? reply : reply.toResponse());
      return;
    }
    const sse = this.#sse;
    try {
      const idLiteral = this.#options.idLiteral;
      await sse.write(
        idLiteral !== undefined
          ? new JsonText(messageText(message, idLiteral))
          : message.result instanceof JsonText
          ? { ...message, result: JSON.parse(message.result.text) }
          : message,
      );
    } catch (error) {
      if (!(error instanceof CancelledError) && !this.#isCancelled) {
        sse.abort(error);
        throw error;
      }
      return;
    }
    void sse.close();
  }

  /**
   * Ends the SSE connection now, before the reply, without ending the stream: the client resumes it
   * with `GET` + `Last-Event-ID` (opening the stream first, so its priming event goes out). False
   * when the stream is not resumable or the reply was given.
   */
  detach(): boolean {
    if (this.#replied || !this.#options.stream) return false;
    return this.openStream().detach?.() ?? false;
  }

  /** Tears the response down: an open stream errors for its reader, a pending one becomes `response`. */
  abort(reason: unknown, response?: Response): void {
    this.#replied = true;
    if (!this.#settled) this.#settle(response ?? new Response(null, { status: 503 }));
    this.#sse?.abort(reason);
    this.#cancel(reason);
  }

  #cancel(reason: unknown): void {
    if (this.#isCancelled) return;
    this.#isCancelled = true;
    this.#cancelReason = reason;
    this.#cancelled?.abort(reason);
    this.#options.onCancel?.(reason);
  }

  #settle(response: Response | TextReply): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#resolve(response);
    this.#resolve = SETTLED; // a long response (a listen stream) keeps no resolver
  }
}

/** What `#resolve` becomes once the response is settled: one function for all. */
const SETTLED = (): void => {};

/** The headers of a JSON reply without extra fields: one frozen record for all. */
const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ "content-type": "application/json" });

/** `fields` and `Content-Type: application/json`, as a record with lower-case names. */
function jsonHeaders(fields: HeaderFields | undefined): Readonly<Record<string, string>> {
  if (fields === undefined) return JSON_HEADERS;
  const record: Record<string, string> = Object.fromEntries(new Headers(fields));
  record["content-type"] = "application/json";
  return record;
}
