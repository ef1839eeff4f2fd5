/** Types of api/check_exports.mjs, for the test that imports it. */
export declare function exportMismatches(
  pkg: { exports?: Record<string, unknown> },
  deno: { exports?: Record<string, string> },
  exists?: (path: string) => boolean,
): string[];
