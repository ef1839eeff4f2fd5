/**
 * `onemodelcontext inspect`: how the era was decided, who the server is, and what it offers.
 * @module
 */
import type { ContextClient } from "onemodelcontext";
import { listAll } from "./session.ts";

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
  const lines = [
    `Server        ${info?.title ?? info?.name ?? "(unnamed)"} ${info?.version ?? ""}`.trimEnd(),
    `Era           ${report.era} (protocol ${report.protocolVersion})`,
    `Negotiation   ${n.outcome} in ${Number(n.elapsedMs ?? 0).toFixed(0)} ms` +
    `${n.probes !== undefined ? `, ${n.probes} probe(s)` : ""}${n.respawned ? ", respawned" : ""}`,
    `Capabilities  ${Object.keys(report.capabilities).join(", ") || "(none)"}`,
  ];
  if (report.instructions) lines.push(`Instructions  ${report.instructions}`);
  const section = (title: string, items: unknown[], describe: (item: Record<string, unknown>) => string): void => {
    lines.push("", `${title} (${items.length})`);
    for (const item of items) lines.push(`  ${describe(item as Record<string, unknown>)}`);
  };
  section("Tools", report.tools, (t) => `${t.name}${t.description ? `  — ${t.description}` : ""}`);
  section("Prompts", report.prompts, (p) => `${p.name}${p.description ? `  — ${p.description}` : ""}`);
  section("Resources", report.resources, (r) => `${r.uri}${r.name ? `  (${r.name})` : ""}`);
  return lines.join("\n");
}
