/** The "Writing a server" example of docs/server.md is the type-checked file next to this test, verbatim. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../../fixtures/ours/build_dist.ts";

describe("docs/server.md: Writing a server", () => {
  it("shows exactly test/src/server/features/readme/writing_a_server.ts", () => {
    const readme = readFileSync(join(ROOT, "docs/server.md"), "utf8");
    const section = readme.slice(readme.indexOf("## Writing a server"));
    const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    expect(block).toBe(
      readFileSync(join(ROOT, "test/src/server/features/readme/writing_a_server.ts"), "utf8"),
    );
  });
});
