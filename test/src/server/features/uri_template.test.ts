import { describe, expect, it } from "vitest";
import { UriTemplate } from "../../../../src/server/features/uri_template.ts";

describe("UriTemplate", () => {
  it("matches a level 1 variable within one path segment and decodes it", () => {
    const template = new UriTemplate("test://template/{id}/data");
    expect(template.variables).toEqual(["id"]);
    expect({ ...template.match("test://template/123/data") }).toEqual({ id: "123" });
    expect({ ...template.match("test://template/a%20b/data") }).toEqual({ id: "a b" });
    expect(template.match("test://template/1/2/data")).toBeUndefined();
    expect(template.match("test://template/123/datax")).toBeUndefined();
    expect(template.match("test://other/123/data")).toBeUndefined();
  });

  it("treats the template's literal text as literal, not as a regular expression", () => {
    const template = new UriTemplate("file:///a.b/{name}.txt");
    expect({ ...template.match("file:///a.b/x.y.txt") }).toEqual({ name: "x.y" });
    expect(template.match("file:///aXb/x.txt")).toBeUndefined();
  });

  it("matches level 2 reserved ({+path}) and fragment ({#frag}) expansion across slashes", () => {
    const reserved = new UriTemplate("file:///{+path}");
    expect({ ...reserved.match("file:///src/a/b.ts") }).toEqual({ path: "src/a/b.ts" });
    const fragment = new UriTemplate("doc://page{#section}");
    expect({ ...fragment.match("doc://page#intro/part") }).toEqual({ section: "intro/part" });
    expect({ ...fragment.match("doc://page") }).toEqual({});
  });

  it("matches level 3 label, path, path-parameter and query expressions with several variables", () => {
    expect({ ...new UriTemplate("x://h/{a,b}").match("x://h/1,2") }).toEqual({ a: "1", b: "2" });
    expect({ ...new UriTemplate("x://h/file{.ext}").match("x://h/file.json") }).toEqual({ ext: "json" });
    expect({ ...new UriTemplate("x://h{/seg1,seg2}/end").match("x://h/a/b/end") }).toEqual({
      seg1: "a",
      seg2: "b",
    });
    expect({ ...new UriTemplate("x://h/p{;v,w}").match("x://h/p;v=1;w") }).toEqual({ v: "1", w: "" });
    const query = new UriTemplate("search://q{?term,limit}");
    expect({ ...query.match("search://q?limit=5&term=mcp%20spec&other=1") }).toEqual({
      term: "mcp spec",
      limit: "5",
    });
    expect({ ...query.match("search://q") }).toEqual({});
    expect({ ...new UriTemplate("x://q?fixed=1{&more}").match("x://q?fixed=1&more=yes") }).toEqual({
      more: "yes",
    });
  });

  it("refuses a value that does not percent-decode", () => {
    expect(new UriTemplate("x://{id}").match("x://%E0%A4%A")).toBeUndefined();
  });

  it("expands variables with the encoding of each operator and leaves absent ones out", () => {
    expect(new UriTemplate("test://template/{id}/data").expand({ id: "a b/c" })).toBe(
      "test://template/a%20b%2Fc/data",
    );
    expect(new UriTemplate("file:///{+path}").expand({ path: "a b/c" })).toBe("file:///a%20b/c");
    expect(new UriTemplate("search://q{?term,limit}").expand({ term: "x y", limit: 5 })).toBe(
      "search://q?term=x%20y&limit=5",
    );
    expect(new UriTemplate("search://q{?term,limit}").expand({})).toBe("search://q");
    expect(new UriTemplate("x://h{/a,b}").expand({ a: "1", b: "2" })).toBe("x://h/1/2");
  });

  it("round-trips expand and match", () => {
    const template = new UriTemplate("x://h/{a}{?b,c}");
    const vars = { a: "ä/ö", b: "1&2", c: "=" };
    expect({ ...template.match(template.expand(vars)) }).toEqual(vars);
  });

  it("refuses level 4 modifiers, unbalanced braces, reserved operators and bad names", () => {
    expect(() => new UriTemplate("x://{list*}")).toThrow(/level 4/);
    expect(() => new UriTemplate("x://{name:3}")).toThrow(/level 4/);
    expect(() => new UriTemplate("x://{id")).toThrow(/unclosed/);
    expect(() => new UriTemplate("x://id}")).toThrow(/without "\{"/);
    expect(() => new UriTemplate("x://{=id}")).toThrow(/reserved operator/);
    expect(() => new UriTemplate("x://{a-b}")).toThrow(/invalid variable name/);
  });

  it("a template without expressions is static and matches only itself", () => {
    const template = new UriTemplate("test://static");
    expect(template.isStatic).toBe(true);
    expect({ ...template.match("test://static") }).toEqual({});
    expect(template.match("test://static2")).toBeUndefined();
  });

  it("keeps a variable named __proto__ as data", () => {
    const match = new UriTemplate("x://{__proto__}").match("x://polluted");
    expect(match && Object.getOwnPropertyDescriptor(match, "__proto__")?.value).toBe("polluted");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("UriTemplate matching in linear time", () => {
  // Before: each expression became a backtracking regular expression group, so a literal the
  // expression's class also matches (`{city}-{date}`) made a non-matching 96 KiB URI take seconds and
  // `{x}{y}{z}` was cubic. These inputs finish at once only when matching is linear.
  it("refuses a 96 KiB URI against {city}-{date} without backtracking", () => {
    const template = new UriTemplate("weather://{city}-{date}");
    expect(template.match(`weather://${"-".repeat(96 * 1024)}/`)).toBeUndefined();
    expect({ ...template.match(`weather://${"a-".repeat(48 * 1024)}`) }).toEqual({
      city: `${"a-".repeat(48 * 1024 - 1)}a`,
    });
  });

  it("refuses a 256 KiB URI against {x}{y}{z} without backtracking", () => {
    const template = new UriTemplate("t://{x}{y}{z}/end");
    expect(template.match(`t://${"a".repeat(256 * 1024)}/nope`)).toBeUndefined();
    expect({ ...template.match(`t://${"a".repeat(256 * 1024)}/end`) }).toEqual({ x: "a".repeat(256 * 1024) });
  });

  it("chooses the values a greedy left-to-right match chooses, wherever a match exists", () => {
    expect({ ...new UriTemplate("weather://{city}-{date}").match("weather://new-york-2024") }).toEqual({
      city: "new-york",
      date: "2024",
    });
    expect({ ...new UriTemplate("x://{a}-{b}-{c}").match("x://p-q-r") }).toEqual({ a: "p", b: "q", c: "r" });
    expect({ ...new UriTemplate("x://{+path}/{name}.txt").match("x://a/b/c.d.txt") }).toEqual({
      path: "a/b",
      name: "c.d",
    });
    expect({ ...new UriTemplate("x://{+a}-{+b}").match("x://1-2-3") }).toEqual({ a: "1", b: "2-3" });
    expect({ ...new UriTemplate("x://h{/a,b}{/c}").match("x://h/1/2/3") }).toEqual({
      a: "1",
      b: "2",
      c: "3",
    });
    expect(new UriTemplate("x://{a}-{b}").match("x://nodash")).toBeUndefined();
  });
});
