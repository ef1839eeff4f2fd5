/**
 * JsonRpcConnection against hostile input (issue 12): an oversize reply fails its request, notification
 * handlers share the handler bound, input is bounded in bytes (`maxInFlightBytes`), peer text in
 * replies and reports is bounded and inert, ids beyond 2^53 come back byte-exact, and 2025-03-26
 * batches are served only where `acceptsBatch` says so.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JsonRpcConnection, type JsonRpcConnectionOptions } from "../../../src/rpc/json_rpc_connection.ts";
import { MessageTooLargeError } from "../../../src/wire/errors.ts";
import { createDuplexPair, type Duplex } from "../../../testing/duplex_pair.ts";
import { flushMicrotasks } from "../../../testing/fake_time_provider.ts";

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
beforeAll(() => void process.on("unhandledRejection", onUnhandled));
afterAll(async () => {
  await flushMicrotasks();
  process.off("unhandledRejection", onUnhandled);
  expect(unhandled).toEqual([]);
});

const encoder = new TextEncoder();
const MiB = 1024 * 1024;

/** The test's side: raw lines in, raw lines out. */
function rawPeer(duplex: Duplex) {
  const writer = duplex.writable.getWriter();
  const lines: string[] = [];
  void (async () => {
    const reader = duplex.readable.pipeThrough(
      new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>,
    ).getReader();
    let rest = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += value;
      let nl: number;
      while ((nl = rest.indexOf("\n")) !== -1) {
        lines.push(rest.slice(0, nl));
        rest = rest.slice(nl + 1);
      }
    }
  })().catch(() => {});
  return {
    lines,
    write: (text: string) => writer.write(encoder.encode(text)),
    send: (message: unknown) => writer.write(encoder.encode(JSON.stringify(message) + "\n")),
    end: () => writer.close(),
    async waitFor(n: number): Promise<string[]> {
      for (let i = 0; i < 3_000 && lines.length < n; i++) await flushMicrotasks();
      expect(lines.length).toBeGreaterThanOrEqual(n);
      return lines.slice(0, n);
    },
  };
}

function setup(options: JsonRpcConnectionOptions = {}) {
  const [a, b] = createDuplexPair();
  const reports: Error[] = [];
  const connection = new JsonRpcConnection(b, { onReport: (e) => reports.push(e), ...options });
  return { connection, peer: rawPeer(a), reports };
}

async function settle(turns = 40): Promise<void> {
  for (let i = 0; i < turns; i++) await flushMicrotasks();
}

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe("an oversize reply fails the request it answers (12.2)", () => {
  it("rejects the request whose id heads the discarded reply with a MessageTooLargeError naming size and limit", async () => {
    const { connection, peer, reports } = setup({ channel: { maxMessageBytes: 10_000 } });
    connection.start();
    const first = connection.request("big");
    const second = connection.request("small");
    await peer.waitFor(2);
    await peer.write(`{"jsonrpc":"2.0","id":1,"result":{"text":"${"x".repeat(50_000)}"}}\n`);
    await peer.send({ jsonrpc: "2.0", id: 2, result: "fine" });
    const error = await first.then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(MessageTooLargeError);
    const tooLarge = error as MessageTooLargeError;
    expect(tooLarge.limitBytes).toBe(10_000);
    expect(tooLarge.sizeBytes).toBeGreaterThan(10_000);
    expect(tooLarge.requestId).toBe(1);
    expect(tooLarge.message).toMatch(/10000 bytes/);
    expect(tooLarge.message).toMatch(new RegExp(`${tooLarge.sizeBytes} bytes`));
    expect(await second).toBe("fine");
    expect(reports.map((r) => (r as MessageTooLargeError).code)).toEqual(["message_too_large"]);
    expect(connection.isClosed).toBe(false);
    await connection.close();
  });

  it("finds the id after other members in the head, and a string id", async () => {
    const { connection, peer } = setup({ channel: { maxMessageBytes: 10_000 } });
    connection.start();
    const call = connection.request("big", undefined, { id: "req-7" });
    await peer.waitFor(1);
    await peer.write(`{"jsonrpc":"2.0","result":{"a":[1,{"id":99}]},"id":"req-7"${" ".repeat(20_000)}}\n`);
    // The id here comes after a nested id inside the 4 KiB head: only the top-level one counts.
    await expect(call).rejects.toMatchObject({ code: "message_too_large", requestId: "req-7" });
    await connection.close();
  });

  it("without a readable id, fails every pending request and closes the connection with that error", async () => {
    const { connection, peer } = setup({ channel: { maxMessageBytes: 10_000 } });
    connection.start();
    const calls = [connection.request("a"), connection.request("b")];
    await peer.waitFor(2);
    await peer.write(`{"jsonrpc":"2.0","result":"${"x".repeat(50_000)}","id":1}\n`);
    for (const call of calls) await expect(call).rejects.toBeInstanceOf(MessageTooLargeError);
    const info = await connection.closed;
    expect(info.reason).toBe("fault");
    await expect(connection.request("c")).rejects.toBeInstanceOf(Error);
  });

  it("an oversize request without a readable id is still answered without an id, and the connection stays", async () => {
    const { connection, peer } = setup({ channel: { maxMessageBytes: 1_000 } });
    connection.handle("m", (p) => p).start();
    await peer.write(`{"jsonrpc":"2.0","method":"m","params":"${"x".repeat(5_000)}","id":1}\n`);
    await peer.send({ jsonrpc: "2.0", id: 2, method: "m", params: "ok" });
    const [reply, next] = (await peer.waitFor(2)).map((l) => JSON.parse(l));
    expect(reply.error.code).toBe(-32600);
    expect("id" in reply).toBe(false);
    expect(next).toEqual({ jsonrpc: "2.0", id: 2, result: "ok" });
    await connection.close();
  });

  it("a reply within maxMessageBytes is delivered as before (the bound is not hit early)", async () => {
    const { connection, peer } = setup({ channel: { maxMessageBytes: 10_000 } });
    connection.start();
    const call = connection.request("fits");
    await peer.waitFor(1);
    const text = "x".repeat(9_000);
    await peer.send({ jsonrpc: "2.0", id: 1, result: text });
    expect(await call).toBe(text);
    await connection.close();
  });
});

describe("notification handlers share the handler bound (12.4)", () => {
  it("never runs more async notification handlers than maxConcurrentRequests, and runs them all", async () => {
    const { connection, peer } = setup({ maxConcurrentRequests: 8 });
    let running = 0;
    let peak = 0;
    let done = 0;
    const release = gate();
    connection.onNotification("notifications/progress", async () => {
      running++;
      peak = Math.max(peak, running);
      await release.opened;
      running--;
      done++;
    });
    connection.start();
    let text = "";
    for (let i = 0; i < 2_000; i++) {
      text += JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: { progress: i } }) +
        "\n";
    }
    void peer.write(text);
    await settle();
    expect(peak).toBe(8);
    expect(connection.activeHandlers).toBe(8);
    release.open();
    for (let i = 0; i < 500 && done < 2_000; i++) await flushMicrotasks();
    expect(done).toBe(2_000);
    expect(peak).toBe(8);
    await connection.close();
  });

  it("starts every notification handler at once while under the bound (not hit early)", async () => {
    const { connection, peer } = setup({ maxConcurrentRequests: 1_000 });
    let running = 0;
    const release = gate();
    connection.onNotification("n", async () => {
      running++;
      await release.opened;
    });
    connection.start();
    let text = "";
    for (let i = 0; i < 500; i++) text += `{"jsonrpc":"2.0","method":"n"}\n`;
    void peer.write(text);
    await settle();
    expect(running).toBe(500);
    release.open();
    await connection.close();
  });

  it("a request waits behind notification handlers holding every slot", async () => {
    const { connection, peer } = setup({ maxConcurrentRequests: 2 });
    const release = gate();
    connection.onNotification("n", () => release.opened);
    connection.handle("m", () => "served");
    connection.start();
    void peer.write(
      `{"jsonrpc":"2.0","method":"n"}\n{"jsonrpc":"2.0","method":"n"}\n{"jsonrpc":"2.0","id":1,"method":"m"}\n`,
    );
    await settle();
    expect(peer.lines).toEqual([]);
    release.open();
    expect(JSON.parse((await peer.waitFor(1))[0]!)).toEqual({ jsonrpc: "2.0", id: 1, result: "served" });
    await connection.close();
  });
});

describe("input is bounded in bytes: maxInFlightBytes (12.5)", () => {
  const bigRequest = (id: number, size: number) =>
    JSON.stringify({ jsonrpc: "2.0", id, method: "m", params: "x".repeat(size) }) + "\n";

  it("stops reading once queued input plus running handlers' params reach the bound, and resumes as handlers finish", async () => {
    const { connection, peer } = setup({ maxInFlightBytes: 1 * MiB, maxQueuedInputBytes: 16 * MiB });
    const started: number[] = [];
    const gates = new Map<number, () => void>();
    connection.handle("m", (_p, ctx) => {
      started.push(ctx.id as number);
      return new Promise<string>((resolve) => gates.set(ctx.id as number, () => resolve("ok")));
    });
    connection.start();
    let text = "";
    for (let i = 1; i <= 20; i++) text += bigRequest(i, 300_000);
    void peer.write(text);
    await settle();
    // 3 × 300 KB is under 1 MiB, so a 4th is read; then the bound holds (1 MiB plus one message).
    expect(started).toEqual([1, 2, 3, 4]);
    gates.get(1)!();
    await settle();
    expect(started).toEqual([1, 2, 3, 4, 5]);
    for (let i = 2; i <= 20; i++) {
      for (let t = 0; t < 200 && !gates.has(i); t++) await flushMicrotasks();
      gates.get(i)!();
    }
    expect((await peer.waitFor(20)).length).toBe(20);
    await connection.close();
  });

  it("admits one message larger than the bound into an idle connection", async () => {
    const { connection, peer } = setup({ maxInFlightBytes: 64 * 1024 });
    connection.handle("m", (p) => (p as string).length).start();
    void peer.write(bigRequest(1, 500_000));
    expect(JSON.parse((await peer.waitFor(1))[0]!)).toEqual({ jsonrpc: "2.0", id: 1, result: 500_000 });
    await connection.close();
  });

  it("is not hit early: under the bound every request runs at once", async () => {
    const { connection, peer } = setup({ maxInFlightBytes: 64 * MiB });
    let running = 0;
    const release = gate();
    connection.handle("m", async () => {
      running++;
      await release.opened;
    });
    connection.start();
    let text = "";
    for (let i = 1; i <= 20; i++) text += bigRequest(i, 300_000);
    void peer.write(text);
    await settle();
    expect(running).toBe(20);
    release.open();
    await connection.close();
  });

  it("counts async notification handlers' params too", async () => {
    const { connection, peer } = setup({ maxInFlightBytes: 1 * MiB });
    let running = 0;
    const release = gate();
    connection.onNotification("n", async () => {
      running++;
      await release.opened;
    });
    connection.start();
    let text = "";
    for (let i = 0; i < 10; i++) {
      text += JSON.stringify({ jsonrpc: "2.0", method: "n", params: "y".repeat(400_000) }) + "\n";
    }
    void peer.write(text);
    await settle();
    expect(running).toBe(3);
    release.open();
    await connection.close();
  });

  it("rejects a maxInFlightBytes below 1", () => {
    const [, b] = createDuplexPair();
    expect(() => new JsonRpcConnection(b, { maxInFlightBytes: 0 })).toThrow(/maxInFlightBytes/);
  });
});

describe("peer text is bounded and inert (12.6)", () => {
  it("answers a 10 MB method with a small error reply and small reports", async () => {
    const { connection, peer, reports } = setup();
    connection.start();
    const method = "m\n" + "x".repeat(10_000_000);
    await peer.send({ jsonrpc: "2.0", id: 1, method });
    const [reply] = await peer.waitFor(1);
    expect(reply!.length).toBeLessThan(1_024);
    const parsed = JSON.parse(reply!);
    expect(parsed.error.code).toBe(-32601);
    expect(parsed.error.message).toContain("(10000002 characters)");
    expect(parsed.error.message).not.toContain("\n");
    expect(reports.every((r) => r.message.length < 1_024)).toBe(true);
    await connection.close();
  });

  it("answers a 10 MB id as an Invalid Request without id, with small reports", async () => {
    const { connection, peer, reports } = setup();
    connection.handle("m", () => "never").start();
    await peer.send({ jsonrpc: "2.0", id: "i".repeat(10_000_000), method: "m" });
    const [reply] = await peer.waitFor(1);
    expect(reply!.length).toBeLessThan(1_024);
    const parsed = JSON.parse(reply!);
    expect(parsed.error.code).toBe(-32600);
    expect("id" in parsed).toBe(false);
    expect(parsed.error.message).toMatch(/at most 1024 characters/);
    expect(reports.length).toBe(1);
    expect(reports[0]!.message.length).toBeLessThan(1_024);
    await connection.close();
  });

  it("accepts an id of exactly 1024 characters (the bound is not hit early)", async () => {
    const { connection, peer } = setup();
    connection.handle("m", () => "ok").start();
    const id = "i".repeat(1_024);
    await peer.send({ jsonrpc: "2.0", id, method: "m" });
    expect(JSON.parse((await peer.waitFor(1))[0]!)).toEqual({ jsonrpc: "2.0", id, result: "ok" });
    await connection.close();
  });

  it("never lets a newline in a peer's reply id or error message start a new report line", async () => {
    const { connection, peer, reports } = setup();
    connection.start();
    await peer.send({ jsonrpc: "2.0", id: "x\nFORGED LOG LINE", result: 1 });
    await peer.send({
      jsonrpc: "2.0",
      error: { code: 1, message: "boom\r\nFORGED\u2028LINE " + "z".repeat(1_000_000) },
    });
    await settle();
    expect(reports.length).toBe(2);
    for (const report of reports) {
      expect(report.message).not.toMatch(/[\n\r\u2028]/);
      expect(report.message.length).toBeLessThan(1_024);
    }
    await connection.close();
  });
});

describe("ids beyond 2^53 come back byte-exact (12.9)", () => {
  it("echoes 9007199254740993 as written, in results and in errors", async () => {
    const { connection, peer } = setup();
    connection.handle("ok", () => "fine").start();
    await peer.write(`{"jsonrpc":"2.0","id":9007199254740993,"method":"ok"}\n`);
    await peer.write(`{"jsonrpc":"2.0","method":"missing","id":-12345678901234567890}\n`);
    const lines = await peer.waitFor(2);
    expect(lines).toContain(`{"jsonrpc":"2.0","id":9007199254740993,"result":"fine"}`);
    expect(lines.find((l) => l.includes("-32601"))).toMatch(
      /^\{"jsonrpc":"2\.0","id":-12345678901234567890,"error":/,
    );
    await connection.close();
  });

  it("leaves safe integer ids on the ordinary path", async () => {
    const { connection, peer } = setup();
    connection.handle("ok", () => "fine").start();
    await peer.write(`{"jsonrpc":"2.0","id":9007199254740991,"method":"ok"}\n`);
    expect(await peer.waitFor(1)).toEqual([`{"jsonrpc":"2.0","id":9007199254740991,"result":"fine"}`]);
    await connection.close();
  });
});

describe("ids beyond 2^53 are in flight by their exact text (issue 25.18)", () => {
  it("runs 9007199254740995 and 9007199254740997 (both read as …996) as two requests, each answered with its own id", async () => {
    const { connection, peer, reports } = setup();
    const held = gate();
    connection.handle("wait", async () => {
      await held.opened;
      return "done";
    }).start();
    await peer.write(`{"jsonrpc":"2.0","id":9007199254740995,"method":"wait"}\n`);
    await peer.write(`{"jsonrpc":"2.0","id":9007199254740997,"method":"wait"}\n`);
    await settle();
    held.open();
    const lines = await peer.waitFor(2);
    expect(lines.sort()).toEqual([
      `{"jsonrpc":"2.0","id":9007199254740995,"result":"done"}`,
      `{"jsonrpc":"2.0","id":9007199254740997,"result":"done"}`,
    ]);
    expect(reports.filter((r) => /in flight/.test(r.message))).toEqual([]);
    await connection.close();
  });

  it("refuses the same big id twice, naming and echoing it as written", async () => {
    const { connection, peer } = setup();
    const held = gate();
    connection.handle("wait", async () => {
      await held.opened;
      return "done";
    }).start();
    await peer.write(`{"jsonrpc":"2.0","id":9007199254740995,"method":"wait"}\n`);
    await peer.write(`{"jsonrpc":"2.0","id":9007199254740995,"method":"wait"}\n`);
    const [refusal] = await peer.waitFor(1);
    expect(refusal).toMatch(/^\{"jsonrpc":"2\.0","id":9007199254740995,"error":\{"code":-32600,/);
    expect(refusal).toContain("id 9007199254740995 is already in flight");
    held.open();
    await peer.waitFor(2);
    await connection.close();
  });

  it("cancels the big id the peer named, not the other one it rounds alike", async () => {
    const { connection, peer } = setup();
    const aborted: string[] = [];
    const held = gate();
    connection.handle("wait", async (_params, context) => {
      context.signal.addEventListener("abort", () => aborted.push("x"));
      await held.opened;
      return "done";
    }).start();
    await peer.write(`{"jsonrpc":"2.0","id":9007199254740995,"method":"wait"}\n`);
    await peer.write(`{"jsonrpc":"2.0","id":9007199254740997,"method":"wait"}\n`);
    await settle();
    await peer.write(
      `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"r","requestId":9007199254740997}}\n`,
    );
    await settle();
    expect(aborted).toEqual(["x"]);
    held.open();
    expect(await peer.waitFor(1)).toEqual([`{"jsonrpc":"2.0","id":9007199254740995,"result":"done"}`]);
    await connection.close();
  });
});

describe("JSON-RPC batches (12.10)", () => {
  it("rejects a batch with one -32600 naming the version rule unless acceptsBatch says yes", async () => {
    const { connection, peer } = setup();
    connection.handle("m", () => 1).start();
    await peer.write(`[{"jsonrpc":"2.0","id":1,"method":"m"},{"jsonrpc":"2.0","id":2,"method":"m"}]\n`);
    await peer.send({ jsonrpc: "2.0", id: 3, method: "m" });
    const [first, second] = (await peer.waitFor(2)).map((l) => JSON.parse(l));
    expect(first.error.code).toBe(-32600);
    expect(first.error.message).toMatch(/2025-03-26/);
    expect(second).toEqual({ jsonrpc: "2.0", id: 3, result: 1 });
    await connection.close();
  });

  it("serves a batch where acceptsBatch says yes: every request answered in one array, notifications not", async () => {
    const { connection, peer } = setup({ acceptsBatch: () => true, maxConcurrentRequests: 1 });
    const notes: unknown[] = [];
    connection.handle("echo", (p) => p).onNotification("n", (p) => void notes.push(p)).start();
    await peer.write(
      `[{"jsonrpc":"2.0","id":1,"method":"echo","params":"a"},{"jsonrpc":"2.0","method":"n","params":"note"},` +
        `{"jsonrpc":"2.0","id":"two","method":"missing"},{"nope":1},{"jsonrpc":"2.0","id":3,"method":"echo","params":"c"}]\n`,
    );
    const lines = await peer.waitFor(1);
    // deno-lint-ignore no-explicit-any
    const replies = JSON.parse(lines[0]!) as Array<Record<string, any>>;
    expect(Array.isArray(replies)).toBe(true);
    expect(replies).toHaveLength(4);
    expect(replies).toContainEqual({ jsonrpc: "2.0", id: 1, result: "a" });
    expect(replies).toContainEqual({ jsonrpc: "2.0", id: 3, result: "c" });
    expect(replies.find((r) => r.id === "two")?.error.code).toBe(-32601);
    expect(replies.find((r) => !("id" in r))?.error.code).toBe(-32600);
    expect(notes).toEqual(["note"]);
    await connection.close();
  });

  it("sends nothing for an all-notification batch and one -32600 for an empty one", async () => {
    const { connection, peer } = setup({ acceptsBatch: () => true });
    const notes: unknown[] = [];
    connection.onNotification("n", (p) => void notes.push(p)).handle("m", () => "after").start();
    await peer.write(
      `[{"jsonrpc":"2.0","method":"n","params":1},{"jsonrpc":"2.0","method":"n","params":2}]\n[]\n`,
    );
    await peer.send({ jsonrpc: "2.0", id: 9, method: "m" });
    const [empty, after] = (await peer.waitFor(2)).map((l) => JSON.parse(l));
    expect(empty.error.code).toBe(-32600);
    expect("id" in empty).toBe(false);
    expect(after).toEqual({ jsonrpc: "2.0", id: 9, result: "after" });
    expect(notes).toEqual([1, 2]);
    await settle();
    expect(peer.lines).toHaveLength(2);
    await connection.close();
  });

  it("lingers for a batch's reply at EOF", async () => {
    const [a, b] = createDuplexPair();
    const connection = new JsonRpcConnection(b, { acceptsBatch: () => true });
    const release = gate();
    connection.handle("slow", async () => {
      await release.opened;
      return "late";
    }).start();
    const peer = rawPeer(a);
    await peer.write(`[{"jsonrpc":"2.0","id":1,"method":"slow"}]\n`);
    await peer.end();
    await settle();
    release.open();
    expect(JSON.parse((await peer.waitFor(1))[0]!)).toEqual([{ jsonrpc: "2.0", id: 1, result: "late" }]);
    expect((await connection.closed).reason).toBe("eof");
  });
});
