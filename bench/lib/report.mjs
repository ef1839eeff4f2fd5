/** Turns the medians into the Markdown table, the machine line and the sample details. */
import { MiB } from "./payloads.mjs";
import { median } from "./stats.mjs";

const fmt = (value, digits = 0) => {
  if (value === undefined || !Number.isFinite(value)) return "—";
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
};
const ratio = (
  a,
  b,
) => (Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? `${(a / b).toFixed(2)}×` : "—");
const mark = (ok) => (ok === undefined ? "" : ok ? "yes" : "**no**");

/**
 * `results[row][impl]` holds the samples of one measurement. Returns `{ table, details, verdicts }`.
 */
export function renderReport(results) {
  const withBefore = Object.values(results).some((byImpl) => byImpl.before?.length);
  const runtimes = ["deno", "bun"].filter((c) => Object.values(results).some((byImpl) => byImpl[c]?.length));
  const COLUMNS = [
    ...(withBefore ? ["ours", "before", "sdk2", "sdk1", "floor"] : ["ours", "sdk2", "sdk1", "floor"]),
    ...runtimes,
  ];
  const HEAD = [
    ...(withBefore
      ? ["onemodelcontext", "before", "SDK 2.4.0", "SDK 1.32.2", "floor"]
      : ["onemodelcontext", "SDK 2.4.0", "SDK 1.32.2", "floor"]),
    ...runtimes.map((r) => `ours, server on ${r === "deno" ? "Deno" : "Bun"}`),
  ];
  const beforeRatio = (values) => (withBefore ? [ratio(values.ours, values.before)] : []);
  const m = (row, impl) =>
    median(
      results[row]?.[impl] ??
        (impl === "floor" && row.endsWith("M") ? results[row.slice(0, -1)]?.floor : undefined) ?? [],
    );
  const rows = [];
  const bestSdk = (inFlight) =>
    Math.max(
      ...["sdk2", "sdk1"].flatMap((c) => [m(`rt${inFlight}`, c), m(`rt${inFlight}M`, c)]).filter(
        Number.isFinite,
      ),
    );
  const verdicts = [];
  const add = (label, row, { digits = 0, scale = 1, target = "", check, floor = true } = {}) => {
    const values = Object.fromEntries(COLUMNS.map((c) => [c, m(row, c) / scale]));
    const ok = Number.isFinite(values.ours) ? check?.(values) : undefined;
    if (ok !== undefined) verdicts.push({ label, target, ok });
    rows.push([
      label,
      ...COLUMNS.map((c) => {
        const over = results[row]?.over?.[c];
        return !Number.isFinite(values[c]) && over !== undefined
          ? `> ${fmt(over / scale, digits)} (given up)`
          : fmt(values[c], digits);
      }),
      ...beforeRatio(values),
      ratio(values.ours, values.sdk2),
      ratio(values.ours, values.sdk1),
      floor ? ratio(values.ours, values.floor) : "—",
      row.startsWith("rt") ? ratio(values.ours, bestSdk(row.slice(2).replace("M", ""))) : "—",
      target,
      mark(ok),
    ]);
    return values;
  };
  const rt1 = add("Round trips/s, 1 in flight (higher is better)", "rt1", {
    target: "≥ ½ floor",
    check: (v) => v.ours >= v.floor / 2,
  });
  add("Round trips/s, 64 in flight (higher is better)", "rt64", {
    target: "≥ 2× each SDK, ≥ ½ floor",
    check: (v) => v.ours >= 2 * v.sdk2 && v.ours >= 2 * v.sdk1 && v.ours >= v.floor / 2,
  });
  void rt1;
  // The modern era: ours (and "before") and SDK 2.4 pinned to 2026-07-28 in their columns; the SDK
  // 1.32 column stays empty (it has no modern era). "best SDK pair" (bestSdk) is the faster of every
  // SDK pair measured at that depth, either era.
  add("Modern era: round trips/s, 1 in flight (higher is better)", "rt1M", {
    target: "≥ 2× best SDK pair",
    check: (v) => v.ours >= 2 * bestSdk(1),
  });
  add("Modern era: round trips/s, 64 in flight (higher is better)", "rt64M", {
    target: "≥ 2× best SDK pair, ≥ ½ floor",
    check: (v) => v.ours >= 2 * bestSdk(64) && v.ours >= v.floor / 2,
  });
  add("CPU per round trip, 1 in flight, µs, client + server (lower is better)", "cpu1");
  add("CPU per round trip, 64 in flight, µs, client + server (lower is better)", "cpu64");
  add("Modern era: CPU per round trip, 1 in flight, µs, client + server (lower is better)", "cpu1M");
  add("Modern era: CPU per round trip, 64 in flight, µs, client + server (lower is better)", "cpu64M");
  const l8 = add("8 MiB tool result, ms (lower is better)", "large8", { digits: 0 });
  const l32 = add("32 MiB tool result, ms (lower is better)", "large32", { digits: 0 });
  void l8;
  void l32;
  // The median of per-repetition quotients (each from back-to-back calls), not a quotient of medians.
  const growth = Object.fromEntries(COLUMNS.map((c) => [c, m("growth", c)]));
  const growthOk = Number.isFinite(growth.ours) ? growth.ours <= 4.4 : undefined;
  if (growthOk !== undefined) verdicts.push({ label: "32 MiB / 8 MiB time", target: "≤ ~4", ok: growthOk });
  rows.push([
    "32 MiB time ÷ 8 MiB time, per repetition (4.00 = linear)",
    ...COLUMNS.map((c) => fmt(growth[c], 2)),
    ...(withBefore ? ["—"] : []),
    "—",
    "—",
    "—",
    "—",
    "≤ ~4",
    mark(growthOk),
  ]);
  add("Server peak RSS growth, client never reads, 200 × 1 MiB replies, MiB (lower is better)", "rss", {
    digits: 1,
    scale: MiB,
    target: "< 32 MiB",
    check: (v) => v.ours < 32,
    floor: false,
  });
  add("Close, server exits on stdin EOF, ms (lower is better)", "closeExit", {
    digits: 0,
    target: "< 100 ms",
    check: (v) => v.ours < 100,
  });
  add("Close, server ignores stdin EOF, ms (lower is better)", "closeLinger", { digits: 0, floor: false });

  const header = [
    "Measurement (median)",
    ...HEAD,
    ...(withBefore ? ["ours / before"] : []),
    "ours / SDK 2.4",
    "ours / SDK 1.32",
    "ours / floor",
    "ours / best SDK pair",
    "target",
    "met",
  ];
  const table = [
    `| ${header.join(" | ")} |`,
    `|${header.map((_, i) => (i === 0 ? "---" : "---:")).join("|")}|`,
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ].join("\n");

  const detailLines = [];
  for (const [row, byImpl] of Object.entries(results)) {
    const parts = [];
    for (const c of COLUMNS) {
      if (byImpl.over?.[c] !== undefined && !byImpl[c]?.length) {
        parts.push(`${c} [given up after ${fmt(byImpl.over[c])} ms]`);
      }
      const samples = byImpl[c];
      if (!samples?.length) continue;
      const scale = row === "rss" ? MiB : 1;
      const digits = row === "growth" ? 2 : row === "rss" || row.startsWith("rt") ? 1 : 0;
      parts.push(`${c} [${samples.map((s) => fmt(s / scale, digits)).join(", ")}]`);
    }
    const extra = results[row].notes ? ` — ${results[row].notes.join("; ")}` : "";
    detailLines.push(`- \`${row}\`: ${parts.join(" · ")}${extra}`);
  }
  return { table, details: detailLines.join("\n"), verdicts };
}
