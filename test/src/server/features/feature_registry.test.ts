import { describe, expect, it } from "vitest";
import {
  FeatureRegistry,
  type FeatureRegistryOptions,
} from "../../../../src/server/features/feature_registry.ts";
import type { FeatureRequestContext } from "../../../../src/server/features/feature_host.ts";
import { LogLevels } from "../../../../src/server/features/log_levels.ts";
import { InvalidOptionError } from "../../../../src/wire/errors.ts";
import { legacyContext, modernContext } from "./helpers.ts";

/** The smallest registry: named strings. */
class Names extends FeatureRegistry {
  readonly entries = new Map<string, { wire: string }>();
  get size(): number {
    return this.entries.size;
  }
  add(name: string): () => void {
    this.assertFree(this.entries, name, `Name ${name}`);
    return this.register(this.entries, name, { wire: name });
  }
  list(params: unknown, context: FeatureRequestContext): Record<string, unknown> {
    return this.listPage("names", "names", [...this.entries.values()].map((e) => e.wire), params, context);
  }
}

function names(pageSize = 2): { registry: Names; changes: string[] } {
  const changes: string[] = [];
  const options: FeatureRegistryOptions = {
    pageSize,
    listExtras: { ttlMs: 0 },
    onChange: () => changes.push("changed"),
  };
  return { registry: new Names(new LogLevels(undefined as never), options), changes };
}

describe("FeatureRegistry", () => {
  it("refuses a taken key, announces each registration and removal, and removes only its own entry", () => {
    const { registry, changes } = names();
    const removeFirst = registry.add("a");
    expect(() => registry.add("a")).toThrow(InvalidOptionError);
    expect(() => registry.add("a")).toThrow("Name a is already registered: remove it first");
    expect(changes).toEqual(["changed"]);
    removeFirst();
    removeFirst();
    expect(changes).toEqual(["changed", "changed"]);
    registry.add("a");
    removeFirst(); // a stale remover leaves the new entry alone
    expect(registry.size).toBe(1);
    expect(changes).toEqual(["changed", "changed", "changed"]);
  });

  it("pages a list, with the list extras only in the modern era", () => {
    const { registry } = names(2);
    for (const name of ["a", "b", "c"]) registry.add(name);
    const first = registry.list({}, modernContext());
    expect(first).toEqual({ names: ["a", "b"], nextCursor: expect.any(String), ttlMs: 0 });
    expect(registry.list({ cursor: first.nextCursor }, modernContext())).toEqual({ names: ["c"], ttlMs: 0 });
    expect(registry.list({}, legacyContext())).toEqual({ names: ["a", "b"], nextCursor: first.nextCursor });
  });
});
