/**
 * The wire form of listen-bus events between processes: one JSON object per message,
 * `{"v":1,"origin":"<replica id>","event":{"type":"list_changed","list":"tools"}}`, at most
 * `maxMessageBytes` UTF-8 bytes. {@linkcode decodeListenMessage} never throws: a malformed message
 * comes back as an error for the bus to report, so it never reaches a subscriber.
 * @module
 */
import { MessageTooLargeError, ProtocolError } from "../../../wire/errors.ts";
import type { ListenBusEvent, ListenEvent, ListenList } from "./listen_bus.ts";

/** The version written in the `v` field; a message with another version is reported, not delivered. */
export const LISTEN_MESSAGE_VERSION = 1;

/** Default bound of one encoded message: 16 KiB (a resource URI is the only unbounded field). */
export const DEFAULT_MAX_LISTEN_MESSAGE_BYTES = 16 * 1024;

const LISTS: ReadonlySet<string> = new Set<ListenList>(["tools", "prompts", "resources"]);
const encoder = new TextEncoder();

/**
 * A listen-bus message, encoded or received, was over `maxMessageBytes`.
 * `code` is `message_too_large`; `instanceof MessageTooLargeError` holds.
 */
export class ListenMessageTooLargeError extends MessageTooLargeError {
  /** The size of the message in UTF-8 bytes (a lower bound when a received message was not measured whole). */
  readonly messageBytes: number;
  constructor(limitBytes: number, messageBytes: number, atLeast = false) {
    super(limitBytes);
    this.message = `A listen bus message of ${
      atLeast ? "at least " : ""
    }${messageBytes} bytes exceeds maxMessageBytes (${limitBytes} bytes)`;
    this.messageBytes = messageBytes;
  }
}

/** Throws `ProtocolError` unless `event` is a {@linkcode ListenEvent} a bus can publish. */
export function checkListenEvent(event: unknown): asserts event is ListenEvent {
  const problem = listenEventProblem(event);
  if (problem !== undefined) {
    throw new ProtocolError(`Cannot publish listen event ${preview(event)}: ${problem}`);
  }
}

/** The message for `event` published by `origin`; throws {@linkcode ListenMessageTooLargeError} over the bound. */
export function encodeListenMessage(
  event: ListenEvent,
  origin: string,
  maxMessageBytes = DEFAULT_MAX_LISTEN_MESSAGE_BYTES,
): string {
  checkListenEvent(event);
  const wire = event.type === "list_changed"
    ? { type: event.type, list: event.list }
    : event.type === "task_changed"
    ? { type: event.type, taskId: event.taskId }
    : { type: event.type, uri: event.uri };
  const text = JSON.stringify({ v: LISTEN_MESSAGE_VERSION, origin, event: wire });
  const bytes = encoder.encode(text).length;
  if (bytes > maxMessageBytes) throw new ListenMessageTooLargeError(maxMessageBytes, bytes);
  return text;
}

/** A received message as an event to deliver, or the error to report instead. Never throws. */
export function decodeListenMessage(
  text: unknown,
  maxMessageBytes = DEFAULT_MAX_LISTEN_MESSAGE_BYTES,
): { ok: true; event: ListenBusEvent } | { ok: false; error: Error } {
  if (typeof text !== "string") {
    return { ok: false, error: new ProtocolError(`Listen bus message must be a string, got ${typeof text}`) };
  }
  // UTF-8 never has fewer bytes than UTF-16 code units: a long string is refused without encoding it.
  if (text.length > maxMessageBytes) {
    return { ok: false, error: new ListenMessageTooLargeError(maxMessageBytes, text.length, true) };
  }
  const bytes = encoder.encode(text).length;
  if (bytes > maxMessageBytes) {
    return { ok: false, error: new ListenMessageTooLargeError(maxMessageBytes, bytes) };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    return {
      ok: false,
      error: new ProtocolError(`Listen bus message is not JSON: ${preview(text)}`, { cause }),
    };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return {
      ok: false,
      error: new ProtocolError(`Listen bus message must be a JSON object, got ${preview(text)}`),
    };
  }
  const { v, origin, event } = value as { v?: unknown; origin?: unknown; event?: unknown };
  if (v !== LISTEN_MESSAGE_VERSION) {
    return {
      ok: false,
      error: new ProtocolError(
        `Listen bus message has version ${
          JSON.stringify(v) ?? "none"
        }, this replica reads version ${LISTEN_MESSAGE_VERSION}: ${preview(text)}`,
      ),
    };
  }
  if (typeof origin !== "string" || origin.length === 0) {
    return {
      ok: false,
      error: new ProtocolError(`Listen bus message has no origin replica id: ${preview(text)}`),
    };
  }
  const problem = listenEventProblem(event);
  if (problem !== undefined) {
    return {
      ok: false,
      error: new ProtocolError(`Listen bus message carries an invalid event (${problem}): ${preview(text)}`),
    };
  }
  const e = event as ListenEvent;
  return {
    ok: true,
    event: e.type === "list_changed"
      ? { type: e.type, list: e.list, origin }
      : e.type === "task_changed"
      ? { type: e.type, taskId: e.taskId, origin }
      : { type: e.type, uri: e.uri, origin },
  };
}

function listenEventProblem(event: unknown): string | undefined {
  if (typeof event !== "object" || event === null) return "an event must be an object";
  const { type, list, uri, taskId } = event as {
    type?: unknown;
    list?: unknown;
    uri?: unknown;
    taskId?: unknown;
  };
  if (type === "task_changed") {
    return typeof taskId === "string" && taskId.length > 0 && taskId.length <= 256
      ? undefined
      : `taskId must be a string of 1 to 256 characters, got ${JSON.stringify(taskId) ?? "nothing"}`;
  }
  if (type === "list_changed") {
    return typeof list === "string" && LISTS.has(list)
      ? undefined
      : `list must be "tools", "prompts" or "resources", got ${JSON.stringify(list) ?? "nothing"}`;
  }
  if (type === "resource_updated") {
    return typeof uri === "string" && uri.length > 0
      ? undefined
      : `uri must be a non-empty string, got ${JSON.stringify(uri) ?? "nothing"}`;
  }
  return `type must be "list_changed", "resource_updated" or "task_changed", got ${
    JSON.stringify(type) ?? "nothing"
  }`;
}

function preview(value: unknown): string {
  let text: string;
  try {
    text = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);
}
