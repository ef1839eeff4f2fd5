/**
 * Reads a request body as one UTF-8 JSON value under a byte cap enforced while the body streams in.
 * @module
 */
import { integerOption } from "../../stream/options.ts";
import { InvalidUtf8Error, ParseError } from "../../wire/errors.ts";
import { BodyTooLargeError } from "../errors.ts";
import { cancelledIdLiteral, requestIdLiteral } from "../exact_id_text.ts";
import { READ_BODY, type ReadBody, type RequestParts } from "./request_parts.ts";
import { concatBytes } from "../../stream/concat_bytes.ts";

/** The default cap of {@linkcode readJsonBody}: 4 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** One decoder for every body: a whole-buffer decode keeps no state between calls, and making a decoder costs more than using one. */
const FATAL_UTF8 = new TextDecoder("utf-8", { fatal: true });

/** Options of {@linkcode readJsonBody}. */
export interface ReadJsonBodyOptions {
  /**
   * Largest body accepted, in bytes. Default 4 MiB.
   * @default 4 MiB
   */
  maxBodyBytes?: number;
}

/** A body read whole: the parsed value, and whether it was a JSON array (a JSON-RPC batch). */
export interface JsonBody {
  value: unknown;
  batch: boolean;
  /** The body's size in bytes. */
  bytes: number;
  /** The text of the message's `id` when it is a number JSON.parse rounded (beyond 2^53). */
  idLiteral?: string;
  /** The text of a `notifications/cancelled`'s `params.requestId` when it is a number JSON.parse rounded. */
  cancelledIdLiteral?: string;
}

/**
 * Reads `request`'s body as UTF-8 JSON (through its {@linkcode READ_BODY} method when it has one: `serve()` on Node).
 *
 * Rejects with {@linkcode BodyTooLargeError} (answer 413) at once, reading nothing, when
 * `Content-Length` declares more than `maxBodyBytes`; and, whatever `Content-Length` says, as soon
 * as the bytes that actually arrive pass `maxBodyBytes` (the chunk that crosses the cap is not kept
 * and the body stream is cancelled). Rejects with `InvalidUtf8Error` (code `invalid_utf8`) for bytes
 * that are not UTF-8 and with `ParseError` (code `parse`, `line` the first 200 characters) for an
 * empty body or text that is not JSON: answer both with -32700. A leading UTF-8 BOM is ignored.
 *
 * @example
 * ```ts
 * async function readMessage(request: Request): Promise<Response | undefined> {
 *   try {
 *     const { value, batch } = await readJsonBody(request);
 *     return undefined; // dispatch value (a batch when batch is true)
 *   } catch (error) {
 *     if (error instanceof BodyTooLargeError) return payloadTooLarge(error.limitBytes);
 *     if (error instanceof ParseError || error instanceof InvalidUtf8Error) return parseError(error.message);
 *     throw error;
 *   }
 * }
 * ```
 */
export async function readJsonBody(
  request: RequestParts,
  options: ReadJsonBodyOptions = {},
): Promise<JsonBody> {
  const limit = integerOption("maxBodyBytes", options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES, 1);
  const declared = declaredLength(request.headers.get("content-length"));
  if (declared !== undefined && declared > limit) {
    // Not awaited: the cancel of a clone()'s body settles only once its twin is cancelled too.
    void request.body?.cancel().catch(() => {}); // the body is refused unread; a failing cancel changes nothing
    throw new BodyTooLargeError(limit, declared);
  }
  const direct = (request as { [READ_BODY]?: ReadBody })[READ_BODY]?.(limit);
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (direct !== undefined) {
    const whole = await direct;
    chunks.push(whole);
    total = whole.byteLength;
  } else if (request.body !== null) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (total + value.byteLength > limit) {
        void reader.cancel().catch(() => {}); // stop the upload; the 413 is the outcome (not awaited: see above)
        throw new BodyTooLargeError(limit);
      }
      chunks.push(value);
      total += value.byteLength;
    }
  }
  if (total === 0) throw new ParseError("");
  const bytes = chunks.length === 1 ? chunks[0]! : concatBytes(chunks, total);
  let text: string;
  try {
    text = FATAL_UTF8.decode(bytes);
  } catch (cause) {
    throw new InvalidUtf8Error({ cause });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new ParseError(text, { cause });
  }
  const body: JsonBody = { value, batch: Array.isArray(value), bytes: total };
  const idLiteral = requestIdLiteral(value, text);
  if (idLiteral !== undefined) body.idLiteral = idLiteral;
  const cancelled = cancelledIdLiteral(value, text);
  if (cancelled !== undefined) body.cancelledIdLiteral = cancelled;
  return body;
}

/** A `Content-Length` value as a number, or `undefined` when absent or not a plain decimal. */
function declaredLength(header: string | null): number | undefined {
  if (header === null) return undefined;
  const trimmed = header.trim();
  return /^\d+$/.test(trimmed) ? Number(trimmed) : undefined;
}
