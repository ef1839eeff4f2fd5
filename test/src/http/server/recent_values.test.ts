import { describe, expect, it } from "vitest";
import { RecentValues } from "../../../../src/http/server/recent_values.ts";

describe("RecentValues", () => {
  it("computes each input once while it is remembered, undefined results included", () => {
    const seen: string[] = [];
    const values = new RecentValues((input) => {
      seen.push(input);
      return input === "none" ? undefined : input.length;
    });
    expect(values.of("abc")).toBe(3);
    expect(values.of("abc")).toBe(3);
    expect(values.of("none")).toBeUndefined();
    expect(values.of("none")).toBeUndefined();
    expect(seen).toEqual(["abc", "none"]);
  });

  it("holds at most maxEntries inputs: one more forgets them all, and the bound is not hit early", () => {
    let computed = 0;
    const values = new RecentValues((input) => (computed++, input), 3);
    for (const input of ["a", "b", "c"]) values.of(input);
    for (const input of ["a", "b", "c"]) values.of(input);
    expect(computed).toBe(3); // three fit
    values.of("d"); // the fourth clears the map
    expect(computed).toBe(4);
    values.of("a");
    expect(computed).toBe(5);
  });

  it("remembers nothing when compute throws", () => {
    let calls = 0;
    const values = new RecentValues(() => {
      calls++;
      throw new TypeError("Not a URL");
    });
    expect(() => values.of("x")).toThrow("Not a URL");
    expect(() => values.of("x")).toThrow("Not a URL");
    expect(calls).toBe(2);
  });
});
