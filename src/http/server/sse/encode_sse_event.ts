/**
 * The `text/event-stream` frame of one outgoing event.
 * @module
 */
import { ProtocolError } from "../../../wire/errors.ts";

/** One event to send. */
export interface SseEventInit {
  /** The payload; line breaks (CRLF, CR, LF) split it into several `data:` lines. */
  data: string;
  /** `id:` line; must not contain CR, LF or NUL. */
  id?: string;
  /** `event:` line (the type; `message` when omitted); must not contain CR, LF or NUL. */
  event?: string;
  /** `retry:` line, the client's reconnection delay in milliseconds (a non-negative integer). */
  retry?: number;
}

/**
 * The `text/event-stream` frame of one event: optional `id:`, `event:` and `retry:` lines, one
 * `data:` line per line of `data` (so any payload survives the framing), then a blank line. Throws
 * `ProtocolError` when `id` or `event` holds CR, LF or NUL, or `retry` is not a
 * non-negative integer.
 *
 * @example
 * ```ts
 * encodeSseEvent({ id: "7", data: "a\nb" }); // "id: 7\ndata: a\ndata: b\n\n"
 * ```
 */
export function encodeSseEvent(event: SseEventInit): string {
  let frame = "";
  if (event.id !== undefined) frame += `id: ${checkField("id", event.id)}\n`;
  if (event.event !== undefined) frame += `event: ${checkField("event", event.event)}\n`;
  if (event.retry !== undefined) {
    if (!Number.isSafeInteger(event.retry) || event.retry < 0) {
      throw new ProtocolError(`SSE field retry must be a non-negative integer, got ${event.retry}`);
    }
    frame += `retry: ${event.retry}\n`;
  }
  for (const line of event.data.split(/\r\n|\r|\n/)) frame += `data: ${line}\n`;
  return `${frame}\n`;
}

function checkField(field: string, value: string): string {
  if (/[\r\n\0]/.test(value)) {
    throw new ProtocolError(
      `SSE field ${field} must not contain CR, LF or NUL, got ${JSON.stringify(value.slice(0, 60))}`,
    );
  }
  return value;
}
