/**
 * What a {@linkcode MountedServer} reads from its upstream's lists: every page of a list (bounded),
 * the filter of a mount, the fields it shows, and the variables of a URI template.
 * @module
 */
import type { ContextClient } from "../client/context_client.ts";
import type { ConcurrencyLimit } from "./concurrency_limit.ts";

/** Which upstream tools (and prompts) a mount shows: names as the upstream spells them. */
export interface MountFilter {
  /**
   * Only these (exact names).
   * @default every name
   */
  include?: readonly string[];
  /**
   * Never these (exact names).
   * @default no name
   */
  exclude?: readonly string[];
}

/** An item of an upstream list as the wire has it. */
export type Wire = Record<string, unknown>;

/** Where one upstream list is read from. */
export interface ListSource {
  readonly client: ContextClient;
  /** The composer's concurrency limit, each page request runs through it. */
  readonly limit: ConcurrencyLimit;
  /** Pages read at most. */
  readonly maxPages: number;
}

/**
 * Every item of one upstream list, all pages up to `source.maxPages`; `truncated` when the upstream
 * still had pages after those.
 */
export async function listEveryPage(
  source: ListSource,
  list: { method: string; key: string },
): Promise<{ items: Wire[]; truncated: boolean }> {
  const items: Wire[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < source.maxPages; page++) {
    const result = await source.limit.run(() =>
      source.client.request(list.method as never, (cursor === undefined ? {} : { cursor }) as never)
    ) as Wire;
    const found = result?.[list.key];
    if (Array.isArray(found)) {
      items.push(...found.filter((item): item is Wire => typeof item === "object" && item));
    }
    cursor = typeof result?.nextCursor === "string" ? result.nextCursor : undefined;
    if (cursor === undefined) return { items, truncated: false };
  }
  return { items, truncated: true };
}

/** Whether `filter` shows the upstream name `name`. */
export function allowed(filter: MountFilter | undefined, name: string): boolean {
  if (filter?.include && !filter.include.includes(name)) return false;
  return !filter?.exclude?.includes(name);
}

/** The fields `keys` of `from` that are set. */
export function pick(from: Wire, keys: readonly string[]): Wire {
  const out: Wire = {};
  for (const key of keys) if (from[key] !== undefined) out[key] = from[key];
  return out;
}

/** The variable names of an RFC 6570 URI template (operators, explode and prefix modifiers dropped). */
export function templateVariables(uriTemplate: string): string[] {
  return [...uriTemplate.matchAll(/\{[+#./;?&]?([^}]+)\}/g)]
    .flatMap((m) => m[1]!.split(",").map((v) => v.replace(/\*$|:\d+$/, "")));
}
