/**
 * `HttpReply`: the part of an HTTP response the client reads, apart from {@linkcode HttpEndpoint} so
 * that the body readers it uses need not import it.
 * @module
 */

/**
 * What the client reads of an HTTP response: a web `Response` is one. A sender without web streams
 * (undici's dispatcher on Node) makes `body` only when it is read, which only an SSE body is.
 */
export interface HttpReply {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: { get(name: string): string | null };
  readonly body: ReadableStream<Uint8Array> | null;
  text(): Promise<string>;
  /**
   * Optional: the body as text, at most `maxBytes` of it (`cut` when there were more: the rest is
   * dropped and the body released, unread). A sender whose body is no web stream (undici's on Node)
   * reads a JSON reply this way, without making one; aborting `signal` rejects with its reason.
   */
  readText?(maxBytes: number, signal?: AbortSignal): Promise<{ text: string; cut: boolean }>;
}
