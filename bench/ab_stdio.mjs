#!/usr/bin/env node
/**
 * A quick A/B of our stdio round trip against another built checkout, interleaved sample by sample:
 *   node bench/ab_stdio.mjs --baseline=DIR [--rounds=6] [--duration=700] [--eras=modern,legacy] [--depths=64,1]
 * Prints the median rate and CPU µs per round trip (client + server, and the client alone) of each pair, and the ratios.
 */
import { baselineImpl, IMPLS } from "./lib/impls.mjs";
import { roundTripsPerSecond, warmUp } from "./lib/scenarios.mjs";

const option = (name, fallback) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const rounds = Number(option("rounds", 6));
const durationMs = Number(option("duration", 700));
const eras = option("eras", "modern,legacy").split(",");
const depths = option("depths", "64,1").split(",").map(Number);
const base = baselineImpl(option("baseline", "../perfbase"));
const ours = IMPLS.find((i) => i.id === "ours");
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const era of eras) {
  const clients = { after: await ours.connect({ era }), before: await base.connect({ era }) };
  for (const c of Object.values(clients)) await warmUp(c, 2000);
  for (const inFlight of depths) {
    const got = { after: [], before: [] };
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 ? ["after", "before"] : ["before", "after"];
      for (const k of order) got[k].push(await roundTripsPerSecond(clients[k], { inFlight, durationMs }));
    }
    const row = (k) => ({
      rate: median(got[k].map((s) => s.rate)),
      cpu: median(got[k].map((s) => s.cpuUs)),
      ccpu: median(got[k].map((s) => s.cpuUs - s.serverCpuUs)),
      w: median(got[k].map((s) => s.serverWrites)),
      rd: median(got[k].map((s) => s.serverReads)),
    });
    const a = row("after");
    const b = row("before");
    console.log(
      `${era.padEnd(6)} ${String(inFlight).padStart(2)} in flight: before ${
        b.rate.toFixed(0).padStart(6)
      }/s ${b.cpu.toFixed(1).padStart(6)} µs (client ${b.ccpu.toFixed(1)}, srv w/r ${b.w.toFixed(2)}/${
        b.rd.toFixed(2)
      })  after ${a.rate.toFixed(0).padStart(6)}/s ${a.cpu.toFixed(1).padStart(6)} µs (client ${
        a.ccpu.toFixed(1)
      }, srv w/r ${a.w.toFixed(2)}/${a.rd.toFixed(2)})  rate ×${(a.rate / b.rate).toFixed(2)} cpu ×${
        (a.cpu / b.cpu).toFixed(2)
      } client cpu ×${(a.ccpu / b.ccpu).toFixed(2)}`,
    );
  }
  for (const c of Object.values(clients)) await c.close();
}
