/** Types of scripts/check_readme_examples.mjs, for the test that imports it. */
export interface ReadmeBlock {
  /** README line of the block's first code line (1-based). */
  line: number;
  code: string;
  /** Where it is type-checked: node, browser, deno, bun; empty when skipped. */
  targets: string[];
}
export declare function extractBlocks(markdown: string): ReadmeBlock[];
