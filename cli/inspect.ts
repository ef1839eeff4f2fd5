/**
 * `onemodelcontext inspect`: how the era was decided, who the server is, and what it offers.
 *
 * Lists are streamed: each page is printed as it arrives and then dropped, so memory stays bounded by
 * one page however long the server's lists are. The text output shows at most `maxItemsShown` items
 * per list and counts the rest; `--json` writes every item, one page at a time.
 * @module
 */
import type { ContextClient } from "onemodelcontext";
import { toolUiResourceUri } from "onemodelcontext/protocol";
import { listPages, negotiationInWords } from "./session.ts";
import { terminalJson, terminalText } from "./terminal_text.ts";
import { paramsInWords } from "./tool_params.ts";

/** Items shown per list in the text output by default; the rest are counted on a "… N more" line. */
export const DEFAULT_MAX_ITEMS_SHOWN = 1_000;
/** Pages read per list at most by default (a server whose cursors never end is cut off there). */
export const DEFAULT_MAX_PAGES = 10_000;
/** Items read per list at most by default, in text and JSON alike (a server paging forever stops there). */
export const DEFAULT_MAX_ITEMS = 100_000;

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
  /** Items read per list at most. Default {@linkcode DEFAULT_MAX_ITEMS}. */
  maxItems?: number;
}

/** One list `inspect` prints: its title, method, result key and how one item reads. */
interface Section {
  title: string;
  key: "tools" | "prompts" | "resources" | "resourceTemplates";
  /** The capability that advertises the list. */
  capability: string;
  method: string;
  describe(item: Record<string, unknown>): string;
}

// Everything but our own labels came from the server: each piece goes through terminalText.
const one = (value: unknown): string => terminalText(value);
const block = (value: unknown, indent: string): string =>
  terminalText(value, { multiline: true }).replace(/\n/g, `\n${indent}`);
const described = (
  item: Record<string, unknown>,
): string => (item.description ? `  — ${block(item.description, "    ")}` : "");

/** A tool's MCP App view (io.modelcontextprotocol/ui), when it names one. */
const uiView = (tool: Record<string, unknown>): string => {
  const uri = toolUiResourceUri(tool);
  return uri === undefined ? "" : `\n    ui: ${one(uri)} (MCP App view)`;
};

const SECTIONS: readonly Section[] = [
  {
    title: "Tools",
    key: "tools",
    capability: "tools",
    method: "tools/list",
    describe: (t) =>
      `${one(t.name)}${described(t)}${uiView(t)}\n    parameters: ${paramsInWords(t.inputSchema)}`,
  },
  {
    title: "Prompts",
    key: "prompts",
    capability: "prompts",
    method: "prompts/list",
    describe: (p) => `${one(p.name)}${described(p)}`,
  },
  {
    title: "Resources",
    key: "resources",
    capability: "resources",
    method: "resources/list",
    describe: (r) => `${one(r.uri)}${r.name ? `  (${one(r.name)})` : ""}`,
  },
  {
    title: "Resource templates",
    key: "resourceTemplates",
    capability: "resources",
    method: "resources/templates/list",
    describe: (r) => `${one(r.uriTemplate)}${r.name ? `  (${one(r.name)})` : ""}`,
  },
];

/**
 * Prints the report through `options.write`, page by page. Lists only what the server's
 * capabilities advertise: the text leaves the others out, the JSON gives them as empty lists.
 */
export async function printInspect(client: ContextClient, options: InspectOptions): Promise<number> {
  const capabilities = (client.serverCapabilities ?? {}) as Record<string, unknown>;
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  const maxItems = options.maxItems ?? DEFAULT_MAX_ITEMS;
  const pagesOf = (section: Section): AsyncGenerator<unknown[]> | undefined =>
    capabilities[section.capability]
      ? listPages(client, section.method, section.key, {
        maxPages,
        maxItems,
        onCut: (bound) => options.warn?.(`${section.method}: stopped after ${bound}; the list goes on`),
      })
      : undefined;
  if (options.json) return await printJson(client, capabilities, pagesOf, options.write);
  return await printText(client, capabilities, pagesOf, options);
}

/** True when `error` says the method does not exist (a server with resources but no templates). */
function notFound(error: unknown): boolean {
  return (error as { code?: unknown })?.code === -32601;
}

/** A list that failed, in plain words. */
export function listFailure(method: string, error: unknown): string {
  const e = error as { code?: unknown; message?: unknown };
  const message = error instanceof Error ? error.message : String(error);
  if (e.code === -32601) return `the server does not answer ${method} (method not found)`;
  return `${method} failed: ${message}${typeof e.code === "number" ? ` (JSON-RPC ${e.code})` : ""}`;
}

async function printJson(
  client: ContextClient,
  capabilities: Record<string, unknown>,
  pagesOf: (section: Section) => AsyncGenerator<unknown[]> | undefined,
  write: InspectOptions["write"],
): Promise<number> {
  let failures = 0;
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
    let failure: string | undefined;
    try {
      for await (const page of pagesOf(section) ?? []) {
        let text = "";
        for (const item of page) {
          text += `${first ? "" : ","}\n    ${terminalJson(item).replace(/\n/g, "\n    ")}`;
          first = false;
        }
        await write(text);
      }
    } catch (error) {
      if (!(section.key === "resourceTemplates" && notFound(error))) {
        failure = listFailure(section.method, error);
        failures++;
      }
    }
    await write(first ? "]" : "\n  ]");
    if (failure !== undefined) {
      await write(`,\n  ${JSON.stringify(`${section.key}Error`)}: ${terminalJson(failure)}`);
    }
  }
  await write("\n}\n");
  return failures;
}

async function printText(
  client: ContextClient,
  capabilities: Record<string, unknown>,
  pagesOf: (section: Section) => AsyncGenerator<unknown[]> | undefined,
  options: InspectOptions,
): Promise<number> {
  let failures = 0;
  const maxShown = options.maxItemsShown ?? DEFAULT_MAX_ITEMS_SHOWN;
  const n = client.negotiation as {
    outcome?: string;
    elapsedMs?: number;
    probes?: number;
    respawned?: boolean;
  };
  const info = client.serverInfo as { name?: string; version?: string; title?: string } | undefined;
  const lines = [
    `Server        ${one(info?.title ?? info?.name ?? "(unnamed)")} ${one(info?.version ?? "")}`.trimEnd(),
    `Era           ${one(client.era)} (protocol ${one(client.protocolVersion)})`,
    `Negotiation   ${one(negotiationInWords(client))}${n.probes ? `, ${one(n.probes)} probe(s)` : ""}`,
    `Capabilities  ${Object.keys(capabilities).map(one).join(", ") || "(none)"}`,
  ];
  if (client.instructions) lines.push(`Instructions  ${block(client.instructions, "              ")}`);
  await options.write(`${lines.join("\n")}\n`);
  for (const section of SECTIONS) {
    // A list the server does not offer is not shown as an empty one: the capabilities line says so.
    if (!capabilities[section.capability]) continue;
    const state = { headed: false };
    try {
      await printSection(section, pagesOf(section), maxShown, options, state);
    } catch (error) {
      if (section.key === "resourceTemplates" && notFound(error) && !state.headed) {
        await options.write(`\n${section.title} (0)\n`);
        continue;
      }
      failures++;
      const heading = state.headed ? "" : `\n${section.title}\n`;
      await options.write(`${heading}  (could not be listed: ${one(listFailure(section.method, error))})\n`);
    }
  }
  return failures;
}

/** One list of the text report; throws when a page fails (after printing what came before). */
async function printSection(
  section: Section,
  pages: AsyncGenerator<unknown[]> | undefined,
  maxShown: number,
  options: InspectOptions,
  state: { headed: boolean },
): Promise<void> {
  {
    let current;
    current = pages ? await pages.next() : undefined;
    if (!pages || !current || current.done) {
      await options.write(`\n${section.title} (0)\n`);
      return;
    }
    // A list of one page gets its count in the heading; a longer one a closing count. The second
    // page is read before the first is printed, to know which: two pages in memory at most.
    let next;
    try {
      next = await pages.next();
    } catch (error) {
      await options.write(`\n${section.title}\n`);
      state.headed = true;
      await printItems(section, current.value, 0, maxShown, options.write);
      throw error;
    }
    const single = next.done === true;
    await options.write(single ? `\n${section.title} (${current.value.length})\n` : `\n${section.title}\n`);
    state.headed = true;
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
async function printItems(
  section: Section,
  page: unknown[],
  before: number,
  maxShown: number,
  write: InspectOptions["write"],
): Promise<number> {
  const shown = page.slice(0, Math.max(0, maxShown - before));
  if (shown.length > 0) {
    await write(shown.map((item) => `  ${section.describe(item as Record<string, unknown>)}\n`).join(""));
  }
  return before + page.length;
}
