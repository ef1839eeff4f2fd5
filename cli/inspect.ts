/**
 * `onemodelcontext inspect`: how the era was decided, who the server is, and what it offers.
 *
 * Lists are streamed: each page is printed as it arrives and then dropped, so memory stays bounded by
 * one page however long the server's lists are. The text output shows at most `maxItemsShown` items
 * per list and counts the rest; `--json` writes every item, one page at a time.
 * @module
 */
import type { ContextClient } from "onemodelcontext";
import { listPages } from "./session.ts";
import { terminalJson, terminalText } from "./terminal_text.ts";

/** Items shown per list in the text output by default; the rest are counted on a "… N more" line. */
export const DEFAULT_MAX_ITEMS_SHOWN = 1_000;
/** Pages read per list at most by default (a server whose cursors never end is cut off there). */
export const DEFAULT_MAX_PAGES = 10_000;

/** Options of {@linkcode printInspect}. */
export interface InspectOptions {
  /** One JSON document instead of text. */
  json?: boolean;
  /** Writes a piece of output; awaited, so a slow stdout holds the listing back instead of buffering it. */
  write(text: string): void | Promise<void>;
  /** A note for the user that is not part of the output (a list cut at `maxPages`). */
  warn?(text: string): void;
  /** Items shown per list in the text output. Default {@linkcode DEFAULT_MAX_ITEMS_SHOWN}. */
  maxItemsShown?: number;
  /** Pages read per list at most. Default {@linkcode DEFAULT_MAX_PAGES}. */
  maxPages?: number;
}

/** One list `inspect` prints: its title, method, result key and how one item reads. */
interface Section {
  title: string;
  key: "tools" | "prompts" | "resources";
  method: string;
  describe(item: Record<string, unknown>): string;
}

// Everything but our own labels came from the server: each piece goes through terminalText.
const one = (value: unknown): string => terminalText(value);
const block = (value: unknown, indent: string): string => terminalText(value, { multiline: true }).replace(/\n/g, `\n${indent}`);
const described = (item: Record<string, unknown>): string => (item.description ? `  — ${block(item.description, "    ")}` : "");

const SECTIONS: readonly Section[] = [
  { title: "Tools", key: "tools", method: "tools/list", describe: (t) => `${one(t.name)}${described(t)}` },
  { title: "Prompts", key: "prompts", method: "prompts/list", describe: (p) => `${one(p.name)}${described(p)}` },
  { title: "Resources", key: "resources", method: "resources/list", describe: (r) => `${one(r.uri)}${r.name ? `  (${one(r.name)})` : ""}` },
];

/**
 * Prints the report through `options.write`, page by page. Lists only what the server's
 * capabilities advertise (the others print empty).
 */
export async function printInspect(client: ContextClient, options: InspectOptions): Promise<void> {
  const capabilities = (client.serverCapabilities ?? {}) as Record<string, unknown>;
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  const pagesOf = (section: Section): AsyncGenerator<unknown[]> | undefined =>
    capabilities[section.key] ? listPages(client, section.method, section.key, { maxPages, onCut: () => options.warn?.(`${section.method}: stopped after ${maxPages} pages; the list goes on`) }) : undefined;
  if (options.json) await printJson(client, capabilities, pagesOf, options.write);
  else await printText(client, capabilities, pagesOf, options);
}

async function printJson(
  client: ContextClient,
  capabilities: Record<string, unknown>,
  pagesOf: (section: Section) => AsyncGenerator<unknown[]> | undefined,
  write: InspectOptions["write"],
): Promise<void> {
  const head: Record<string, unknown> = {
    era: client.era,
    protocolVersion: client.protocolVersion,
    negotiation: client.negotiation,
    serverInfo: client.serverInfo,
    capabilities,
  };
  if (client.instructions !== undefined) head.instructions = client.instructions;
  // The head as a document without its closing brace; each list follows as a member, streamed.
  await write(terminalJson(head).replace(/\n}$/, ""));
  for (const section of SECTIONS) {
    await write(`,\n  ${JSON.stringify(section.key)}: [`);
    let first = true;
    for await (const page of pagesOf(section) ?? []) {
      let text = "";
      for (const item of page) {
        text += `${first ? "" : ","}\n    ${terminalJson(item).replace(/\n/g, "\n    ")}`;
        first = false;
      }
      await write(text);
    }
    await write(first ? "]" : "\n  ]");
  }
  await write("\n}\n");
}

async function printText(
  client: ContextClient,
  capabilities: Record<string, unknown>,
  pagesOf: (section: Section) => AsyncGenerator<unknown[]> | undefined,
  options: InspectOptions,
): Promise<void> {
  const maxShown = options.maxItemsShown ?? DEFAULT_MAX_ITEMS_SHOWN;
  const n = client.negotiation as { outcome?: string; elapsedMs?: number; probes?: number; respawned?: boolean };
  const info = client.serverInfo as { name?: string; version?: string; title?: string } | undefined;
  const lines = [
    `Server        ${one(info?.title ?? info?.name ?? "(unnamed)")} ${one(info?.version ?? "")}`.trimEnd(),
    `Era           ${one(client.era)} (protocol ${one(client.protocolVersion)})`,
    `Negotiation   ${one(n.outcome)} in ${Number(n.elapsedMs ?? 0).toFixed(0)} ms` +
    `${n.probes !== undefined ? `, ${one(n.probes)} probe(s)` : ""}${n.respawned ? ", respawned" : ""}`,
    `Capabilities  ${Object.keys(capabilities).map(one).join(", ") || "(none)"}`,
  ];
  if (client.instructions) lines.push(`Instructions  ${block(client.instructions, "              ")}`);
  await options.write(`${lines.join("\n")}\n`);
  for (const section of SECTIONS) {
    const pages = pagesOf(section);
    let current = pages ? await pages.next() : undefined;
    if (!pages || !current || current.done) {
      await options.write(`\n${section.title} (0)\n`);
      continue;
    }
    // A list of one page gets its count in the heading; a longer one a closing count. The second
    // page is read before the first is printed, to know which: two pages in memory at most.
    let next = await pages.next();
    const single = next.done === true;
    await options.write(single ? `\n${section.title} (${current.value.length})\n` : `\n${section.title}\n`);
    let total = await printItems(section, current.value, 0, maxShown, options.write);
    current = undefined;
    while (!next.done) {
      total = await printItems(section, next.value, total, maxShown, options.write);
      next = await pages.next();
    }
    const hidden = total - Math.min(total, maxShown);
    if (hidden > 0) await options.write(`  … ${hidden} more (${total} in all)\n`);
    else if (!single) await options.write(`  (${total} in all)\n`);
  }
}

/** Prints the items of one page that fall within the first `maxShown` of the list; returns the count so far. */
async function printItems(section: Section, page: unknown[], before: number, maxShown: number, write: InspectOptions["write"]): Promise<number> {
  const shown = page.slice(0, Math.max(0, maxShown - before));
  if (shown.length > 0) await write(shown.map((item) => `  ${section.describe(item as Record<string, unknown>)}\n`).join(""));
  return before + page.length;
}
