/**
 * A response body read as text under a byte cap enforced while it streams in: a JSON reply
 * ({@linkcode readResponseText}) or the excerpt of an error page ({@linkcode readResponseExcerpt}).
 * @module
 */
import { abortable } from "../../stream/deferred.ts";
import { concatBytes } from "../../stream/concat_bytes.ts";
import { ResponseTooLargeError } from "../errors.ts";
import type { HttpReply } from "./http_reply.ts";

/** The default cap of a JSON response body: 4 MiB, like one SSE event and the request body. */
export const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** The bytes of an error body read for its message: 64 KiB (the message quotes less still). */
export const ERROR_BODY_EXCERPT_BYTES = 64 * 1024;

const UTF8 = new TextDecoder();

/**
 * `response`'s body as text. Rejects with {@linkcode ResponseTooLargeError} at once when
 * `Content-Length` declares more than `maxBytes`, and as soon as the bytes that arrive pass it; the
 * body is cancelled either way, so the connection is released and nothing past the cap is held.
 */
export function readResponseText(
  response: HttpReply,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<string> {
  const declared = declaredLength(response.headers.get("content-length"));
  if (declared !== undefined && declared > maxBytes) {
    void response.body?.cancel().catch(() => {}); // refused unread; a failing cancel changes nothing
    return Promise.reject(new ResponseTooLargeError(maxBytes, declared));
  }
  // No async layer of its own: one promise less per reply.
  return readText(response, maxBytes, signal).then(({ text, cut }) => {
    if (cut) throw new ResponseTooLargeError(maxBytes);
    return text;
  });
}

/**
 * The first `maxBytes` of `response`'s body as text (the rest is cancelled, never read), or `""` when
 * reading fails: for an error status, whose body only serves as an excerpt in a message.
 */
export async function readResponseExcerpt(
  response: HttpReply,
  maxBytes = ERROR_BODY_EXCERPT_BYTES,
): Promise<{ text: string; cut: boolean }> {
  try {
    // A code point cut at the end decodes as U+FFFD: harmless in an excerpt.
    return await readText(response, maxBytes);
  } catch {
    return { text: "", cut: false };
  }
}

/** At most `maxBytes` of the body as text: the reply's own bounded read when it has one (no web stream). */
function readText(
  response: HttpReply,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<{ text: string; cut: boolean }> {
  if (response.readText !== undefined) return response.readText(maxBytes, signal);
  return readBytes(response, maxBytes, signal).then(({ bytes, cut }) => ({ text: UTF8.decode(bytes), cut }));
}

async function readBytes(
  response: HttpReply,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<{ bytes: Uint8Array; cut: boolean }> {
  if (response.body === null) return { bytes: new Uint8Array(0), cut: false };
  const reader = response.body.getReader();
  const onAbort = (): void => void reader.cancel(signal!.reason).catch(() => {});
  signal?.addEventListener("abort", onAbort, { once: true });
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await abortable(reader.read(), signal);
      if (done) break;
      if (total + value.byteLength > maxBytes) {
        const room = maxBytes - total;
        if (room > 0) chunks.push(value.subarray(0, room));
        total += Math.max(0, room);
        void reader.cancel().catch(() => {}); // stop the download: what is past the cap is never held
        return { bytes: concatBytes(chunks, total), cut: true };
      }
      chunks.push(value);
      total += value.byteLength;
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
  return { bytes: chunks.length === 1 ? chunks[0]! : concatBytes(chunks, total), cut: false };
}

/** A `Content-Length` value as a number, or `undefined` when absent or not a plain decimal. */
function declaredLength(header: string | null): number | undefined {
  if (header === null) return undefined;
  const trimmed = header.trim();
  return /^\d+$/.test(trimmed) ? Number(trimmed) : undefined;
}
