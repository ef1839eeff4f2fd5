/**
 * `iteratePages`: follows the cursors of a paginated MCP list (`tools/list`, `resources/list`,
 * `resources/templates/list`, `prompts/list`) one page at a time, within bounds, refusing a cursor it
 * has already been given.
 * @module
 */
import { isPlainObject } from "../../wire/meta_envelope.ts";
import { ClientFeatureError } from "./feature_errors.ts";

/** Cursors remembered for the repeated-cursor guard; a loop longer than this is caught by `maxPages`. */
export const REMEMBERED_CURSORS = 1024;

/** The bounds of one listing. */
export interface ListBounds {
  /** Pages requested at most; a page beyond this fails with `list_too_long`. */
  readonly maxPages: number;
  /** Items accepted at most, over all pages; more fail with `list_too_long`. */
  readonly maxItems: number;
}

/** One page of a listing: its items and the whole result (for `ttlMs`, `cacheScope`, `_meta`). */
export interface ListPage<T> {
  readonly items: T[];
  readonly result: Record<string, unknown>;
}

/**
 * Yields the pages of `method`, fetching the next one only when the consumer asks, so memory holds one
 * page at a time. Throws {@linkcode ClientFeatureError}: `invalid_result` when a page lacks its `key`
 * array or has a non-string `nextCursor`, `repeated_cursor`, `list_too_long`.
 */
export async function* iteratePages<T>(
  method: string,
  key: string,
  fetchPage: (cursor: string | undefined) => Promise<unknown>,
  bounds: ListBounds,
): AsyncGenerator<ListPage<T>, void, undefined> {
  const seen = new Set<string>();
  let cursor: string | undefined;
  let pages = 0;
  let items = 0;
  for (;;) {
    if (pages >= bounds.maxPages) {
      throw new ClientFeatureError(
        "list_too_long",
        `Listing ${method} has more than ${bounds.maxPages} pages (maxPages): stopped before page ${
          pages + 1
        }`,
      );
    }
    const result = await fetchPage(cursor);
    pages++;
    if (!isPlainObject(result) || !Array.isArray(result[key])) {
      throw new ClientFeatureError("invalid_result", `Page ${pages} of ${method} has no ${key} array`);
    }
    const page = result[key] as T[];
    items += page.length;
    if (items > bounds.maxItems) {
      throw new ClientFeatureError(
        "list_too_long",
        `Listing ${method} has more than ${bounds.maxItems} items (maxItems): page ${pages} brought the count to ${items}`,
      );
    }
    const next = result.nextCursor;
    if (next !== undefined && next !== null && typeof next !== "string") {
      throw new ClientFeatureError(
        "invalid_result",
        `Page ${pages} of ${method} has a nextCursor that is not a string: ${typeof next}`,
      );
    }
    yield { items: page, result };
    if (next === undefined || next === null) return;
    if (seen.has(next)) {
      throw new ClientFeatureError(
        "repeated_cursor",
        `Page ${pages} of ${method} repeats the cursor ${
          JSON.stringify(next.slice(0, 100))
        }: the listing loops`,
      );
    }
    seen.add(next);
    if (seen.size > REMEMBERED_CURSORS) seen.delete(seen.values().next().value!);
    cursor = next;
  }
}
