/**
 * `onemodelcontext inspect`: how the era was decided, who the server is, and what it offers.
 * @module
 */
import type { ContextClient } from "onemodelcontext";
import { listAll } from "./session.ts";
import { terminalText } from "./terminal_text.ts";

/** Everything `inspect` reports, also its `--json` document. */
export interface InspectReport {
  era: string;
  protocolVersion: string;
  negotiation: unknown;
  serverInfo: unknown;
  capabilities: Record<string, unknown>;
  instructions?: string;
  tools: unknown[];
  prompts: unknown[];
  resources: unknown[];
}

/** Gathers the report; lists only what the server's capabilities advertise. */
export async function inspect(client: ContextClient): Promise<InspectReport> {
  const capabilities = (client.serverCapabilities ?? {}) as Record<string, unknown>;
  return {
    era: client.era,
    protocolVersion: client.protocolVersion,
    negotiation: client.negotiation,
    serverInfo: client.serverInfo,
    capabilities,
    instructions: client.instructions,
    tools: capabilities.tools ? await listAll(client, "tools/list", "tools") : [],
    prompts: capabilities.prompts ? await listAll(client, "prompts/list", "prompts") : [],
    resources: capabilities.resources ? await listAll(client, "resources/list", "resources") : [],
  };
}

/** The report for people. */
export function formatInspect(report: InspectReport): string {
  const n = report.negotiation as { outcome?: string; elapsedMs?: number; probes?: number; respawned?: boolean };
  const info = report.serverInfo as { name?: string; version?: string; title?: string } | undefined;
  // Everything below but our own labels came from the server: each piece goes through terminalText.
  const one = (value: unknown): string => terminalText(value);
  const block = (value: unknown, indent: string): string => terminalText(value, { multiline: true }).replace(/\n/g, `\n${indent}`);
  const lines = [
    `Server        ${one(info?.title ?? info?.name ?? "(unnamed)")} ${one(info?.version ?? "")}`.trimEnd(),
    `Era           ${one(report.era)} (protocol ${one(report.protocolVersion)})`,
    `Negotiation   ${one(n.outcome)} in ${Number(n.elapsedMs ?? 0).toFixed(0)} ms` +
    `${n.probes !== undefined ? `, ${one(n.probes)} probe(s)` : ""}${n.respawned ? ", respawned" : ""}`,
    `Capabilities  ${Object.keys(report.capabilities).map(one).join(", ") || "(none)"}`,
  ];
  if (report.instructions) lines.push(`Instructions  ${block(report.instructions, "              ")}`);
  const section = (title: string, items: unknown[], describe: (item: Record<string, unknown>) => string): void => {
    lines.push("", `${title} (${items.length})`);
    for (const item of items) lines.push(`  ${describe(item as Record<string, unknown>)}`);
  };
  const described = (item: Record<string, unknown>): string => (item.description ? `  — ${block(item.description, "    ")}` : "");
  section("Tools", report.tools, (t) => `${one(t.name)}${described(t)}`);
  section("Prompts", report.prompts, (p) => `${one(p.name)}${described(p)}`);
  section("Resources", report.resources, (r) => `${one(r.uri)}${r.name ? `  (${one(r.name)})` : ""}`);
  return lines.join("\n");
}
