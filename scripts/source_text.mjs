// What the source checks (check_layers.mjs, check_import_cycles.mjs) share: the `.ts` files under a
// folder, and a file's text with its comments left out.
import { readdirSync } from "node:fs";
import { join } from "node:path";

/** Every `.ts` file under `dir`, in name order. @param {string} dir @returns {string[]} */
export function tsFilesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((entry) =>
      entry.isDirectory()
        ? tsFilesUnder(join(dir, entry.name))
        : entry.name.endsWith(".ts")
        ? [join(dir, entry.name)]
        : []
    );
}

/** Source without comments (a doc comment's example imports are not imports). */
export function withoutComments(/** @type {string} */ text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}
