/**
 * Opaque cursors for every list method (`tools/list`, `prompts/list`, `resources/list`,
 * `resources/templates/list`) and one page size.
 * @module
 */
import { ErrorCodes, JsonRpcError } from "../../wire/errors.ts";
import { isPlainObject } from "../../wire/meta_envelope.ts";

/** Items per list page when the server sets no `pageSize`. */
export const DEFAULT_PAGE_SIZE = 100;

/** One page of a list. */
export interface Page<T> {
  readonly items: T[];
  /** Present when more items follow. */
  readonly nextCursor?: string;
}

const MAX_CURSOR_LENGTH = 256;

/**
 * The page of `items` that the request's `cursor` points at. A cursor is opaque to clients (base64
 * of the list name and an offset); a cursor that is not a string, not ours, or from another list
 * answers -32602. An offset past the end (the list shrank) gives an empty last page.
 */
export function paginate<T>(list: string, items: readonly T[], params: unknown, pageSize: number): Page<T> {
  const cursor = isPlainObject(params) ? params.cursor : undefined;
  const offset = cursor === undefined ? 0 : offsetOf(list, cursor);
  const end = offset + pageSize;
  const page = items.slice(offset, end);
  return end < items.length ? { items: page, nextCursor: encodeCursor(list, end) } : { items: page };
}

/** The cursor of `list` at `offset`. */
export function encodeCursor(list: string, offset: number): string {
  return btoa(JSON.stringify([list, offset]));
}

function offsetOf(list: string, cursor: unknown): number {
  if (typeof cursor !== "string" || cursor.length > MAX_CURSOR_LENGTH) throw invalidCursor(cursor);
  let decoded: unknown;
  try {
    decoded = JSON.parse(atob(cursor));
  } catch {
    throw invalidCursor(cursor);
  }
  if (!Array.isArray(decoded) || decoded.length !== 2 || decoded[0] !== list) throw invalidCursor(cursor);
  const offset = decoded[1];
  if (!Number.isSafeInteger(offset) || offset < 0) throw invalidCursor(cursor);
  return offset;
}

function invalidCursor(cursor: unknown): JsonRpcError {
  const shown = typeof cursor === "string" ? JSON.stringify(cursor.slice(0, 60)) : typeof cursor;
  return new JsonRpcError(
    ErrorCodes.InvalidParams,
    `Invalid params: cursor ${shown} is not a cursor this server gave out`,
  );
}
