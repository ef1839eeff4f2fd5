/**
 * Minimal runtime-neutral assertions for the conformance suites, which run on Node, Deno, Bun and Chromium
 * (`jsr:@std/assert` cannot be fetched on these machines).
 * @module
 */

/** An assertion that did not hold. */
export class AssertionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AssertionError";
  }
}

/** Throws unless `condition` is truthy. */
export function assert(condition: unknown, message = "Expected a truthy value"): asserts condition {
  if (!condition) throw new AssertionError(message);
}

/** Throws unless `actual` and `expected` are deeply equal (plain data: primitives, arrays, objects, bytes). */
export function assertEquals<T>(actual: T, expected: T, message?: string): void {
  if (!deepEqual(actual, expected)) {
    throw new AssertionError(
      `${message ? message + ": " : ""}Values differ\n  actual:   ${show(actual)}\n  expected: ${
        show(expected)
      }`,
    );
  }
}

/** Throws unless `actual === expected`. */
export function assertStrictEquals<T>(actual: T, expected: T, message?: string): void {
  if (!Object.is(actual, expected)) {
    throw new AssertionError(
      `${message ? message + ": " : ""}Expected ${show(expected)}, got ${show(actual)}`,
    );
  }
}

/** Resolves to the rejection reason of `promise`; throws when it fulfils instead. */
export async function assertRejects(
  promise: Promise<unknown>,
  message = "Expected the promise to reject",
): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new AssertionError(message);
}

/**
 * Deep equality of plain data, and of the built-ins tests compare: a `Map` or `Set` by its entries, a
 * `Date` by its time, an `Error` by its class, message and own fields, a `RegExp` by its source and
 * flags; two values of different prototypes are never equal (a null-prototype object counts as plain).
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  const pa = Object.getPrototypeOf(a);
  const pb = Object.getPrototypeOf(b);
  const plain = (p: unknown) => p === null || p === Object.prototype;
  if (pa !== pb && !(plain(pa) && plain(pb))) return false;
  if (a instanceof Date) return Object.is(a.getTime(), (b as Date).getTime());
  if (a instanceof RegExp) return String(a) === String(b);
  if (a instanceof Map) {
    const m = b as Map<unknown, unknown>;
    if (a.size !== m.size) return false;
    for (const [key, value] of a) {
      if (!m.has(key) || !deepEqual(value, m.get(key))) return false;
    }
    return true;
  }
  if (a instanceof Set) {
    const other = b as Set<unknown>;
    if (a.size !== other.size) return false;
    for (const value of a) if (!other.has(value)) return false;
    return true;
  }
  if (a instanceof Error) {
    const e = b as Error;
    if (a.name !== e.name || a.message !== e.message) return false;
  }
  if (ArrayBuffer.isView(a) && ArrayBuffer.isView(b)) {
    const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    return x.length === y.length && x.every((v, i) => v === y[i]);
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) =>
    Object.hasOwn(b, k) && deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])
  );
}

function show(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.length > 300 ? text.slice(0, 300) + "…" : text;
  } catch {
    return String(value);
  }
}
