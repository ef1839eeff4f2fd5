// The runtime-neutral assertEquals of the Deno and conformance suites (issue 25.23): it passed for a
// Map against an empty Map, for two different Dates and for two different Errors.
import { describe, expect, it } from "vitest";
import { assertEquals, AssertionError, deepEqual } from "../../conformance/assert.ts";

describe("shared assertEquals", () => {
  it("tells Maps apart by their entries", () => {
    expect(deepEqual(new Map([["a", 1]]), new Map())).toBe(false);
    expect(deepEqual(new Map([["a", 1]]), new Map([["a", 2]]))).toBe(false);
    expect(deepEqual(new Map([["a", { x: [1] }]]), new Map([["a", { x: [1] }]]))).toBe(true);
    expect(() => assertEquals(new Map([["a", 1]]), new Map())).toThrow(AssertionError);
  });

  it("tells Sets, Dates, RegExps and Errors apart", () => {
    expect(deepEqual(new Set([1]), new Set())).toBe(false);
    expect(deepEqual(new Set([1, 2]), new Set([2, 1]))).toBe(true);
    expect(deepEqual(new Date(1), new Date(2))).toBe(false);
    expect(deepEqual(new Date(5), new Date(5))).toBe(true);
    expect(deepEqual(/a/g, /a/i)).toBe(false);
    expect(deepEqual(new Error("a"), new Error("b"))).toBe(false);
    expect(deepEqual(new Error("a"), new TypeError("a"))).toBe(false);
    expect(deepEqual(Object.assign(new Error("a"), { code: 1 }), Object.assign(new Error("a"), { code: 2 })))
      .toBe(false);
    expect(deepEqual(new Error("a"), new Error("a"))).toBe(true);
  });

  it("still compares plain data, bytes, and refuses an array against an object or a Map against an object", () => {
    expect(deepEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toBe(true);
    expect(deepEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2]))).toBe(true);
    expect(deepEqual(new Uint8Array([1, 2]), new Uint8Array([1, 3]))).toBe(false);
    expect(deepEqual([], {})).toBe(false);
    expect(deepEqual(new Map(), {})).toBe(false);
  });
});
