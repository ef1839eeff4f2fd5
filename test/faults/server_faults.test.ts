/**
 * Hostile peers against our ContextServer in a real process, on Node and on Bun. Each test states
 * the bound it proves and records the figure it measured (printed as `FIGURE | …` lines).
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureDist } from "../fixtures/ours/build_dist.ts";
import { memoryOf, MiB, record, requestLine, type Runtime, startTarget, type Target } from "./target.ts";

beforeAll(() => ensureDist(), 120_000);

const live: Target[] = [];
function target(runtime: Runtime, env: Record<string, string> = {}): Target {
  const t = startTarget(runtime, env);
  live.push(t);
  return t;
}
afterEach(() => {
  for (const t of live.splice(0)) t.kill();
});

/** Asks the target's `stats` tool until `done(stats)` holds (a readiness signal, no sleep); its replies are taken out of `t.messages`. */
// deno-lint-ignore no-explicit-any -- the fixture's stats are loosely typed JSON
async function statsUntil(t: Target, done: (stats: any) => boolean, what: string): Promise<any> {
  for (let i = 0; i < 2_000; i++) {
    const id = `stats-${i}`;
    const before = t.messages.length;
    await t.write(requestLine(id, "stats"));
    let at = -1;
    for (let seen = before + 1; at === -1; seen++) {
      await t.waitForMessages(seen);
      at = t.messages.findIndex((m) => m.id === id);
    }
    const [reply] = t.messages.splice(at, 1);
    if (done(reply!.result)) return reply!.result;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`Gave up waiting for ${what}`);
}

/** Resolves once the target answers (so its baseline memory is taken after start-up). */
async function ready(t: Target): Promise<void> {
  t.startReading();
  await t.write(requestLine("ready", "echo"));
  await t.waitForMessages(1);
  t.messages.length = 0;
}

for (const runtime of ["node", "bun"] as const) {
  describe(`ContextServer on ${runtime} under hostile peers`, () => {
    it("a peer that never reads while handlers produce 200 MB: memory bounded, input paused, every reply delivered once it reads", async () => {
      const t = target(runtime, { REPORT_CHANNEL: "1" });
      // Baseline once the target answered (start-up done); from then on this peer does not read stdout.
      await ready(t);
      t.pauseReading();
      const base = memoryOf(t.pid).rss;
      const replies = 200;
      const extra = 20_000; // ~6.6 MB of small requests behind them: far more than the target may read ahead
      let payload = "";
      for (let i = 0; i < replies; i++) payload += requestLine(i, "blob", { bytes: MiB });
      for (let i = 0; i < extra; i++) payload += requestLine(`e${i}`, "echo", { pad: "p".repeat(200) });
      void t.write(payload);
      // Readiness: the target says its output queue is full (asked on stderr, as stdout is not read).
      let channel = await t.channelStats();
      for (let i = 0; i < 2_000 && !channel.outputFull; i++) channel = await t.channelStats();
      expect(channel.outputFull).toBe(true);
      // Input paused: most of what we wrote is still waiting in our own stream (the pipe is full).
      const unread = t.child.stdin.writableLength;
      expect(unread).toBeGreaterThan(payload.length - 2 * MiB);
      expect(channel.queuedOutputBytes).toBeLessThanOrEqual(2 * MiB + 1024); // 1 MiB bound + one 1 MiB reply
      expect(channel.started).toBeLessThan(10); // handlers wait for output room, not run ahead
      const growth = memoryOf(t.pid).hwm - base; // the peak so far (VmHWM), no sampling
      record(
        `never reads (${runtime})`,
        "server peak RSS growth while 200 × 1 MiB replies are due",
        `${(growth / MiB).toFixed(1)} MiB`,
        "< 32 MiB",
      );
      expect(growth).toBeLessThan(32 * MiB);
      t.startReading();
      await t.waitForMessages(replies + extra, 120_000);
      const ids = new Set(t.messages.map((m) => m.id));
      for (let i = 0; i < replies; i++) expect(ids.has(i)).toBe(true);
      expect(t.messages.filter((m) => typeof m.id === "number").every((m) => m.result.text.length === MiB))
        .toBe(true);
      expect(t.messages).toHaveLength(replies + extra);
    });

    it("a reader that keeps draining slowly after EOF is not cut off at the no-progress deadline; the total bound still ends it", async () => {
      const t = target(runtime);
      for (let i = 0; i < 40; i++) await t.write(requestLine(i, "blob", { bytes: 256 * 1024 }));
      const eofAt = performance.now();
      t.child.stdin.end();
      // 1 KiB every 10 ms: a 16 KiB block completes every ~160 ms, well inside the 5 s deadline.
      let received = 0;
      let lastByteAt = eofAt;
      const reader = setInterval(() => {
        const chunk = t.child.stdout.read(1024) as Buffer | null;
        if (chunk) {
          received += chunk.length;
          lastByteAt = performance.now();
        }
      }, 10);
      const exit = await t.exited;
      clearInterval(reader);
      const linger = exit.at - eofAt;
      record(
        `1 KiB per 10 ms after EOF (${runtime})`,
        "EOF → exit; bytes read",
        `${(linger / 1000).toFixed(1)} s; ${(received / MiB).toFixed(2)} MiB`,
        "not cut at 5 s; ≤ 10 s total",
      );
      // Which bound ended it, in the server's own words (no wall-clock window: a slow machine cannot
      // make this pass or fail): the total bound, not the no-progress deadline.
      expect(exit.code).toBe(0);
      expect(t.stderr()).toMatch(/connection ended \(eof, drain total_timeout\)/);
      expect(received).toBeGreaterThan(0);
      void lastByteAt;
    });

    it("a reader of 1 byte per 10 ms counts as stalled: a 16 KiB block never completes, so output closes at the no-progress deadline", async () => {
      const t = target(runtime);
      for (let i = 0; i < 8; i++) await t.write(requestLine(i, "blob", { bytes: 256 * 1024 }));
      const eofAt = performance.now();
      t.child.stdin.end();
      const reader = setInterval(() => t.child.stdout.read(1), 10);
      const exit = await t.exited;
      clearInterval(reader);
      const linger = exit.at - eofAt;
      record(
        `1 byte per 10 ms after EOF (${runtime})`,
        "EOF → exit",
        `${(linger / 1000).toFixed(1)} s`,
        "5 s no-progress deadline",
      );
      expect(exit.code).toBe(0);
      expect(t.stderr()).toMatch(/connection ended \(eof, drain idle_timeout\)/); // the no-progress deadline
    });

    it("a peer that stops reading forever after EOF: output closed at the no-progress deadline and the process exits", async () => {
      const t = target(runtime);
      for (let i = 0; i < 4; i++) await t.write(requestLine(i, "blob", { bytes: 4 * MiB }));
      const eofAt = performance.now();
      t.child.stdin.end();
      const exit = await t.exited;
      const linger = exit.at - eofAt;
      record(
        `stops reading after EOF (${runtime})`,
        "EOF → process exit",
        `${(linger / 1000).toFixed(1)} s`,
        "≤ 10 s (5 s no-progress)",
      );
      expect(exit.code).toBe(0);
      expect(t.stderr()).toMatch(/connection ended \(eof, drain idle_timeout\)/); // the no-progress deadline
    });

    it("1 GB without a newline: one typed error, memory bounded by maxMessageBytes plus a chunk, the next line served", async () => {
      const t = target(runtime);
      await ready(t);
      const base = memoryOf(t.pid).rss;
      let peak = base;
      const sampler = setInterval(() => {
        try {
          peak = Math.max(peak, memoryOf(t.pid).rss);
        } catch { /* exited */ }
      }, 20);
      const chunk = new Uint8Array(MiB).fill(0x78);
      for (let i = 0; i < 1024; i++) await t.write(chunk);
      // The error is reported as soon as the limit is crossed, long before the newline.
      await t.waitForMessages(1);
      expect(t.messages[0]).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 } });
      expect(t.messages[0]!.error.message).toMatch(/maxMessageBytes/);
      expect("id" in t.messages[0]!).toBe(false);
      await t.write("\n" + requestLine("after", "echo", { ok: true }));
      await t.waitForMessages(2);
      clearInterval(sampler);
      expect(t.messages[1]).toMatchObject({ id: "after", result: { ok: true } });
      expect(t.messages).toHaveLength(2);
      const growth = peak - base;
      // RSS also counts garbage the collector has not reclaimed yet (1 GB of input chunks passed
      // through); what is retained is the limit plus a chunk. Growth must not scale with the input.
      record(
        `1 GB without a newline → server (${runtime})`,
        "server RSS growth (incl. uncollected garbage)",
        `${(growth / MiB).toFixed(1)} MiB`,
        "16 MiB limit + chunk + GC slack < 128 MiB",
      );
      // Bounded, not proportional: 1,024 MiB went in. Bun's collector runs later than V8's in Node.
      expect(growth).toBeLessThan(128 * MiB);
    });

    it("garbage of every kind gets one clear error each, and good requests around it are served", async () => {
      const t = target(runtime);
      await ready(t);
      const deep = "[".repeat(100_000) + "]".repeat(100_000);
      const deepObject = '{"jsonrpc":"2.0","id":"deep-params","method":"echo","params":' +
        '{"a":'.repeat(100_000) + "1" + "}".repeat(100_000) + "}";
      const bad: Array<string | Uint8Array> = [
        new Uint8Array([0xde, 0xad, 0xbe, 0xef, 0x00, 0x01, 0x0a]), // random bytes (invalid UTF-8)
        new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]), // {"\xff\xfe"}
        "this is not json\n",
        '{"hello":"world"}\n', // JSON, not JSON-RPC
        "[]\n",
        JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "echo" }]) + "\n", // a batch
        '{"jsonrpc":"2.0","id":null,"method":"echo"}\n', // null id
        '{"jsonrpc":"1.0","id":"v1","method":"echo"}\n',
        deep + "\n",
      ];
      let id = 0;
      const good = () => requestLine(`good-${id++}`, "echo", { n: id });
      for (const b of bad) {
        await t.write(good());
        await t.write(b);
      }
      const big = "y".repeat(10 * 1000 * 1000);
      await t.write(requestLine("ten-mb", "echo", { big }));
      await t.write(deepObject + "\n");
      await t.write(good());
      const expected = bad.length * 2 + 3;
      await t.waitForMessages(expected);
      // Nothing more: a stats request written last is answered after every error reply was written.
      await t.write(requestLine("last", "stats"));
      await t.waitForMessages(expected + 1);
      expect(t.messages.at(-1)!.id).toBe("last");
      t.messages.pop();
      expect(t.messages).toHaveLength(expected); // exactly one reply per message, nothing more
      const errors = t.messages.filter((m) => m.error);
      const goods = t.messages.filter((m) => typeof m.id === "string" && m.id.startsWith("good-"));
      expect(goods).toHaveLength(bad.length + 1);
      expect(goods.every((m) => m.result && m.result.n >= 1)).toBe(true);
      expect(t.messages.find((m) => m.id === "ten-mb")?.result.big.length).toBe(big.length);
      // The deep params parse; echoing them back cannot be serialised, which is an error reply, not silence.
      expect(t.messages.find((m) => m.id === "deep-params")).toBeDefined();
      const badErrors = errors.filter((m) => m.id !== "deep-params");
      expect(badErrors).toHaveLength(bad.length);
      expect(badErrors.map((m) => m.error.code)).toEqual([
        -32700,
        -32700,
        -32700,
        -32600,
        -32600,
        -32600,
        -32600,
        -32600,
        -32600,
      ]);
      expect(badErrors.filter((m) => m.id === "v1")).toHaveLength(1); // the id was readable, so it is echoed
      record(
        `garbage of every kind (${runtime})`,
        "replies per bad message",
        "exactly 1 error each; good requests all served",
        "1 each",
      );
    });

    it("100,000 pipelined requests written without reading: never more than maxConcurrentRequests handlers, every reply delivered", async () => {
      const t = target(runtime, { MAX_CONCURRENT: "256", REPORT_CHANNEL: "1" });
      const n = 100_000;
      let payload = "";
      for (let i = 0; i < n; i++) {
        payload += requestLine(i, i % 2 ? "sleep" : "echo", i % 2 ? { ms: 5 } : { i });
      }
      const writing = t.write(payload);
      // Readiness: the target's output queue is full (we have not read) before we start reading.
      let channel = await t.channelStats();
      for (let i = 0; i < 20_000 && !channel.outputFull; i++) channel = await t.channelStats();
      expect(channel.outputFull).toBe(true);
      t.startReading();
      await writing;
      await t.waitForMessages(n, 240_000);
      await t.write(requestLine("stats", "stats"));
      await t.waitForMessages(n + 1);
      const stats = t.messages.at(-1)!.result;
      const ids = new Set(t.messages.slice(0, n).map((m) => m.id));
      expect(ids.size).toBe(n);
      record(
        `100,000 pipelined requests (${runtime})`,
        "most handlers at once; replies",
        `${stats.maxActive}; ${ids.size}`,
        "≤ 256; all",
      );
      expect(stats.maxActive).toBeLessThanOrEqual(256);
      expect(stats.maxActive).toBeGreaterThan(1);
    });

    it("a peer that cancels every request right after sending it: every signal aborted, no reply, no leaked timers or handlers", async () => {
      const t = target(runtime);
      await ready(t);
      const n = 250;
      const cancel = (i: number) =>
        JSON.stringify({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: i, reason: "changed my mind" },
        }) + "\n";
      // Running handlers: the cancels come once every sleep has started.
      let running = "";
      for (let i = 0; i < n; i++) running += requestLine(i, "sleep", { ms: 60_000 });
      await t.write(running);
      await statsUntil(t, (s) => s.started >= n + 1, "every sleep to start"); // + the ready echo
      let cancels = "";
      for (let i = 0; i < n; i++) cancels += cancel(i);
      await t.write(cancels);
      // Back to back: each cancel follows its request at once (it may find it still waiting to start).
      let pairs = "";
      for (let i = n; i < 2 * n; i++) pairs += requestLine(i, "sleep", { ms: 60_000 }) + cancel(i);
      await t.write(pairs);
      // Settled: nothing running and every pair's request either started and aborted or dropped.
      const stats = await statsUntil(
        t,
        (s) => s.active === 0 && s.completed === s.started,
        "the cancels to settle",
      );
      expect(t.messages).toHaveLength(0); // no reply for any cancelled request (stats replies are taken out)
      const startedSleeps = stats.started - 1; // minus the ready echo (stats itself is not counted)
      record(
        `cancels every request (${runtime})`,
        "started & aborted / dropped before starting / left running / live timers",
        `${stats.aborted} / ${2 * n - startedSleeps} / ${stats.active} / ${stats.liveTimers}`,
        `every started one / the rest / 0 / 0`,
      );
      expect(startedSleeps).toBeGreaterThanOrEqual(n); // the first n were running when cancelled
      expect(stats.aborted).toBe(startedSleeps);
      expect(stats.active).toBe(0);
      expect(stats.liveTimers).toBe(0);
    });
  });
}
