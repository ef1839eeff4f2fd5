/**
 * `ListReader`: the four paginated lists, complete (bounded, cached for their `ttlMs`) or one page
 * at a time, remembering tools' output schemas on the way.
 * @module
 */
import { integerOption, numberOption } from "../../stream/options.ts";
import {
  type FeatureRequestContext,
  type FeatureRequestOptions,
  sendFeatureRequest,
} from "./feature_request.ts";
import type { ListCache } from "./list_cache.ts";
import type { OutputSchemas } from "./output_schemas.ts";
import { iteratePages, type ListBounds } from "./paginated_list.ts";

/** Options of `listTools()` and the other complete listings. */
export interface ListOptions extends Omit<FeatureRequestOptions, "onProgress"> {
  /**
   * `false` asks the server even when a fresh cached listing exists (the answer still refreshes the cache). Default true.
   * @default true
   */
  cache?: boolean;
  /**
   * Pages followed at most. Default: the client's `maxListPages`.
   * @default the client's `maxListPages`
   */
  maxPages?: number;
  /**
   * Items collected at most. Default: the client's `maxListItems`.
   * @default the client's `maxListItems`
   */
  maxItems?: number;
}

/** Options of `iterateTools()` and the other page-by-page listings. */
export interface IterateOptions extends ListOptions {
  /**
   * Pages followed at most. Default: no bound (a loop of up to 1 024 cursors is still caught).
   * @default no bound
   */
  maxPages?: number;
  /**
   * Items yielded at most. Default: no bound.
   * @default no bound
   */
  maxItems?: number;
}

/** A paginated list method. */
export type ListMethod = "tools/list" | "resources/list" | "resources/templates/list" | "prompts/list";

const LIST_KEYS: Record<ListMethod, string> = {
  "tools/list": "tools",
  "resources/list": "resources",
  "resources/templates/list": "resourceTemplates",
  "prompts/list": "prompts",
};

/**
 * Lists of one client: `list` gathers every page within the bounds and may serve or fill the cache;
 * `iterate` asks for a page only when the previous one is used up.
 *
 * @example
 * ```ts ignore (ListReader is internal: ContextClient's listTools and friends use it)
 * const reader = new ListReader(context, cache, schemas, { maxPages: 1_000, maxItems: 100_000 });
 * const tools = await reader.list("tools/list", {});
 * ```
 */
export class ListReader {
  readonly #context: FeatureRequestContext;
  readonly #cache: ListCache | undefined;
  readonly #schemas: OutputSchemas;
  readonly #bounds: ListBounds;

  /** @param cache `undefined` turns caching off. */
  constructor(
    context: FeatureRequestContext,
    cache: ListCache | undefined,
    schemas: OutputSchemas,
    bounds: ListBounds,
  ) {
    this.#context = context;
    this.#cache = cache;
    this.#schemas = schemas;
    this.#bounds = bounds;
  }

  #pages<T>(method: ListMethod, options: ListOptions, bounds: ListBounds) {
    const { cache: _cache, maxPages: _pages, maxItems: _items, ...request } = options;
    return iteratePages<T>(
      method,
      LIST_KEYS[method],
      (cursor) => sendFeatureRequest(this.#context, method, cursor === undefined ? {} : { cursor }, request),
      bounds,
    );
  }

  /** Every item of `method`, following every cursor within the bounds; served from and stored in the cache. */
  async list<T>(method: ListMethod, options: ListOptions): Promise<T[]> {
    if (this.#cache && options.cache !== false) {
      const hit = this.#cache.get<T>(method);
      if (hit) return hit;
    }
    const bounds: ListBounds = {
      maxPages: integerOption("maxPages", options.maxPages, this.#bounds.maxPages, 1),
      maxItems: integerOption("maxItems", options.maxItems, this.#bounds.maxItems, 0),
    };
    const generation = this.#cache?.begin(method) ?? 0;
    const started = this.#context.host.time.now();
    const items: T[] = [];
    let ttl: number | undefined = Infinity;
    for await (const page of this.#pages<T>(method, options, bounds)) {
      for (const item of page.items) items.push(item);
      const pageTtl = page.result.ttlMs;
      ttl = typeof pageTtl === "number" && ttl !== undefined ? Math.min(ttl, pageTtl) : undefined;
    }
    if (method === "tools/list") this.#schemas.replace(items);
    this.#cache?.store(method, items, ttl, started, generation);
    return items;
  }

  /** The items of `method` one at a time, a page in memory; a fresh cached listing is served without asking. */
  async *iterate<T>(method: ListMethod, options: IterateOptions): AsyncGenerator<T, void, undefined> {
    if (this.#cache && options.cache !== false) {
      const hit = this.#cache.get<T>(method);
      if (hit) {
        yield* hit;
        return;
      }
    }
    const bounds: ListBounds = {
      maxPages: numberOption("maxPages", options.maxPages, Infinity, 1),
      maxItems: numberOption("maxItems", options.maxItems, Infinity, 0),
    };
    for await (const page of this.#pages<T>(method, options, bounds)) {
      for (const item of page.items) {
        if (method === "tools/list") this.#schemas.remember(item);
        yield item;
      }
    }
  }
}
