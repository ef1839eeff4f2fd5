/**
 * `FeatureRegistry`: what the tool, resource and prompt registries share: their options, entries kept
 * by name (or URI) with a refusal of a taken one, removal that tells clients the list changed, one
 * page of a list method's result, and the handler context of a request.
 * @module
 */
import { InvalidOptionError } from "../../wire/errors.ts";
import type { SchemaIssue } from "../../schema/schema_validator.ts";
import type { FeatureRequestContext } from "./feature_host.ts";
import { RequestHandlerContext } from "./handler_context.ts";
import type { LogLevels } from "./log_levels.ts";
import { paginate } from "./pagination.ts";

/** Options every feature registry takes. */
export interface FeatureRegistryOptions {
  /** Items per list page. */
  pageSize: number;
  /** Extra fields of a modern list result (`ttlMs`, `cacheScope`). */
  listExtras: Readonly<Record<string, unknown>>;
  /** Called after each registration and removal. */
  onChange(): void;
}

/** The base of {@linkcode ToolRegistry}, {@linkcode ResourceRegistry} and {@linkcode PromptRegistry}. */
export abstract class FeatureRegistry<O extends FeatureRegistryOptions = FeatureRegistryOptions> {
  protected readonly options: O;
  protected readonly levels: LogLevels;

  constructor(levels: LogLevels, options: O) {
    this.levels = levels;
    this.options = options;
  }

  /** Entries registered now. */
  abstract get size(): number;

  /** Throws {@linkcode InvalidOptionError} when `key` is taken in `entries`; `what` names it ("Tool x"). */
  protected assertFree(entries: ReadonlyMap<string, unknown>, key: string, what: string): void {
    if (entries.has(key)) throw new InvalidOptionError(`${what} is already registered: remove it first`);
  }

  /**
   * Puts `entry` under `key` and announces the change; returns the function that takes it off again
   * (a no-op once the key holds another entry, or none).
   */
  protected register<E>(entries: Map<string, E>, key: string, entry: E): () => void {
    entries.set(key, entry);
    this.changed();
    return () => {
      if (entries.get(key) !== entry) return;
      entries.delete(key);
      this.changed();
    };
  }

  /** Called after each registration and removal. */
  protected changed(): void {
    this.options.onChange();
  }

  /**
   * The result of list method `list` (its cursor name): the page of `items` the request's cursor
   * points at under `key`, `nextCursor` when more follow, and the list extras in the modern era.
   */
  protected listPage(
    list: string,
    key: string,
    items: readonly unknown[],
    params: unknown,
    context: FeatureRequestContext,
  ): Record<string, unknown> {
    const page = paginate(list, items, params, this.options.pageSize);
    const result: Record<string, unknown> = { [key]: page.items };
    if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
    return context.era === "modern" ? Object.assign(result, this.options.listExtras) : result;
  }

  /** The handler context of one request. */
  protected handlerContext(context: FeatureRequestContext, params: unknown): RequestHandlerContext {
    return new RequestHandlerContext(context, params, this.levels);
  }
}

/** Schema issues as one line: `path: message; …`. */
export function describeIssues(issues: readonly SchemaIssue[]): string {
  return issues.map((issue) => (issue.path === "" ? issue.message : `${issue.path}: ${issue.message}`)).join(
    "; ",
  );
}
