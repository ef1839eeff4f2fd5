#!/usr/bin/env node
/**
 * HTTP figures (issue 15 "Measure", issue 17 item 3), run by `npm run bench` (bench/run.mjs --http,
 * on by default) or alone: `node bench/http/run.mjs [--reps=3] [--duration=1000] [--skip=rt,idle,flood]`.
 *
 * - Round trips per second of the `echo` tool at 1 and 64 in flight: our client → our server
 *   (createHttpHandler + serve), modern and legacy era; SDK 2.4 client (pinned 2026-07-28) → SDK 2.4
 *   createMcpHandler on node:http; a plain node:http JSON floor driven by fetch. Every server is its
 *   own child process. Connections are opened before the clock starts (a 64-in-flight warm-up), and
 *   the pairs are interleaved in short slices within each repetition.
 * - RSS of our server holding 10,000 idle `subscriptions/listen` streams (bench/http/idle_listen.mjs).
 * - RSS of our server while one client never reads a stream of 300,000 progress notifications
 *   (bench/http/flood_progress.mjs).
 * Prints a Markdown section to stdout, progress to stderr.
 */
import { median, within } from '../lib/stats.mjs';
import { ECHO_TEXT } from '../lib/payloads.mjs';
import { HTTP_IMPLS, startServer } from './impls.mjs';

const argv = process.argv.slice(2);
const option = (name, fallback) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const reps = Number(option('reps', 3));
const durationMs = Number(option('duration', 1000));
const skip = new Set(option('skip', '').split(',').filter(Boolean));
const log = (...parts) => process.stderr.write(`${parts.join(' ')}\n`);
const results = {};
const record = (row, id, value) => ((results[row] ??= {})[id] ??= []).push(value);
const failures = [];
const attempt = async (what, fn) => {
  try {
    return await fn();
  } catch (error) {
    failures.push(`${what}: ${error?.message ?? error}`);
    log(`  ${what} FAILED: ${error?.stack ?? error}`);
    return undefined;
  }
};

async function rate(client, inFlight, ms) {
  let completed = 0;
  const start = performance.now();
  const deadline = start + ms;
  const worker = async () => {
    while (performance.now() < deadline) {
      if ((await client.call('echo', { text: ECHO_TEXT })) !== ECHO_TEXT) throw new Error('echo returned a different text');
      completed++;
    }
  };
  await within(ms + 30_000, `${inFlight} in flight`, Promise.all(Array.from({ length: inFlight }, worker)));
  return { completed, seconds: (performance.now() - start) / 1000 };
}

const started = performance.now();
if (!skip.has('rt')) {
  const pairs = [];
  for (const impl of HTTP_IMPLS) {
    const server = await attempt(`${impl.id} start`, () => startServer(impl.server));
    if (!server) continue;
    const client = await attempt(`${impl.id} connect`, () => impl.connect(server.url));
    if (!client) {
      await server.stop();
      continue;
    }
    // Warm-up: JIT on both sides, and 64 keep-alive connections opened before any clock starts.
    await attempt(`${impl.id} warm-up`, async () => {
      for (let i = 0; i < 10; i++) await Promise.all(Array.from({ length: 64 }, () => client.call('echo', { text: ECHO_TEXT })));
    });
    pairs.push({ impl, server, client });
  }
  const SLICES = 4;
  for (let rep = 1; rep <= reps; rep++) {
    for (const inFlight of [1, 64]) {
      const sums = new Map();
      for (let slice = 0; slice < SLICES; slice++) {
        for (const { impl, client } of pairs) {
          const sample = await attempt(`${impl.id} ${inFlight} in flight`, () => rate(client, inFlight, durationMs / SLICES));
          if (!sample) continue;
          const sum = sums.get(impl.id) ?? { completed: 0, seconds: 0 };
          sum.completed += sample.completed;
          sum.seconds += sample.seconds;
          sums.set(impl.id, sum);
        }
      }
      for (const [id, sum] of sums) {
        record(`rt${inFlight}`, id, sum.completed / sum.seconds);
        log(`http round trips  rep ${rep}  ${String(inFlight).padStart(2)} in flight  ${id.padEnd(5)} ${(sum.completed / sum.seconds).toFixed(0)}/s`);
      }
    }
  }
  for (const { impl, server, client } of pairs) {
    await attempt(`${impl.id} close`, () => client.close());
    await server.stop();
  }
}

const memory = {};
if (!skip.has('idle')) {
  const { idleListenRss } = await import('./idle_listen.mjs');
  const figure = await attempt('idle listen streams', () => idleListenRss({ streams: Number(option('streams', 10_000)) }));
  if (figure) {
    memory.idle = figure;
    log(`http idle listen  ${figure.streams} streams: server RSS ${(figure.baseline / 2 ** 20).toFixed(1)} → ${(figure.rss / 2 ** 20).toFixed(1)} MiB`);
  }
}
if (!skip.has('flood')) {
  const { progressFloodRss } = await import('./flood_progress.mjs');
  const figure = await attempt('progress flood', () => progressFloodRss({ notifications: Number(option('notifications', 300_000)) }));
  if (figure) {
    memory.flood = figure;
    log(`http progress flood  server RSS ${(figure.baseline / 2 ** 20).toFixed(1)} → peak ${(figure.peak / 2 ** 20).toFixed(1)} MiB, ${figure.sent} notifications sent`);
  }
}

const m = (row, id) => median(results[row]?.[id] ?? []);
const fmt = (v, d = 0) => (Number.isFinite(v) ? v.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }) : '—');
const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b ? `${(a / b).toFixed(2)}×` : '—');
const MiB = 2 ** 20;
const lines = [];
lines.push(`### HTTP (bench/http/run.mjs, ${reps} repetitions, ${(durationMs / 1000).toFixed(1)} s per sample, ${((performance.now() - started) / 1000).toFixed(0)} s)`);
lines.push('');
if (results.rt1 || results.rt64) {
  const ids = HTTP_IMPLS.map((i) => i.id);
  lines.push(`| Round trips/s (median) | ${HTTP_IMPLS.map((i) => i.label).join(' | ')} | ours / SDK 2.4 | ours / floor | target |`);
  lines.push(`|---|${ids.map(() => '---:').join('|')}|---:|---:|---|`);
  for (const inFlight of [1, 64]) {
    const row = `rt${inFlight}`;
    lines.push(`| ${inFlight} in flight | ${ids.map((id) => fmt(m(row, id))).join(' | ')} | ${ratio(m(row, 'ours'), m(row, 'sdk2'))} | ${ratio(m(row, 'ours'), m(row, 'floor'))} | ≥ 2× SDK 2.4, ≥ ½ floor |`);
  }
  lines.push('');
  lines.push(`Samples: ${Object.entries(results).map(([row, byId]) => `\`${row}\` ${Object.entries(byId).map(([id, s]) => `${id} [${s.map((v) => fmt(v)).join(', ')}]`).join(' · ')}`).join('; ')}`);
  lines.push('');
}
if (memory.idle) {
  const f = memory.idle;
  lines.push(`- ${fmt(f.streams)} idle \`subscriptions/listen\` streams on our server: RSS ${fmt(f.baseline / MiB, 1)} MiB before, ${fmt(f.rss / MiB, 1)} MiB with them open: ${fmt((f.rss - f.baseline) / f.streams / 1024, 1)} KiB per stream, about ${fmt(2 ** 30 / Math.max(1, (f.rss - f.baseline) / f.streams))} streams per GiB (opened in ${fmt(f.openMs)} ms).`);
}
if (memory.flood) {
  const f = memory.flood;
  lines.push(`- One client that never reads a \`tools/call\` stream of ${fmt(f.notifications)} progress notifications: server RSS ${fmt(f.baseline / MiB, 1)} MiB before, peak ${fmt(f.peak / MiB, 1)} MiB (growth ${fmt((f.peak - f.baseline) / MiB, 1)} MiB; ${fmt(f.sent)} notifications handed to the stream when sampling stopped after ${fmt(f.sampledMs)} ms).`);
}
if (failures.length) lines.push('', `Failures: ${failures.join('; ')}`);
process.stdout.write(`${lines.join('\n')}\n`);
