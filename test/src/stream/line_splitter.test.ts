import { describe, expect, it } from "vitest";
import { InvalidUtf8Error, MessageTooLargeError } from "../../../src/wire/errors.ts";
import {
  DEFAULT_MAX_MESSAGE_BYTES,
  type InputLine,
  LineReader,
  LineSplitter,
  splitLines,
} from "../../../src/stream/line_splitter.ts";
import { flushMicrotasks } from "../../../testing/fake_time_provider.ts";
import {
  collect,
  concatBytes,
  cutAt,
  everyByte,
  KiB,
  manualReadable,
  MiB,
  readableOf,
  repeatedChunkReadable,
  retainedBytes,
  utf8,
} from "../../helpers/streams.ts";

type Shown = string | "TOO_LARGE" | "BAD_UTF8";

function show(events: InputLine[]): Shown[] {
  return events.map((e) => {
    if (e.kind === "line") return e.text;
    if (e.error instanceof MessageTooLargeError) return "TOO_LARGE";
    if (e.error instanceof InvalidUtf8Error) return "BAD_UTF8";
    throw new Error(`unexpected event ${String(e)}`);
  });
}

async function linesOf(chunks: Uint8Array[], maxMessageBytes?: number): Promise<Shown[]> {
  return show(await collect(splitLines(readableOf(chunks), { maxMessageBytes })));
}

/** Splits in one chunk, in one-byte chunks, and at every single cut point; all must agree. */
async function linesEverySplit(bytes: Uint8Array, maxMessageBytes?: number): Promise<Shown[]> {
  const whole = await linesOf([bytes], maxMessageBytes);
  expect(await linesOf(everyByte(bytes), maxMessageBytes)).toEqual(whole);
  for (let cut = 1; cut < bytes.byteLength; cut++) {
    expect(await linesOf(cutAt(bytes, [cut]), maxMessageBytes), `cut at ${cut}`).toEqual(whole);
  }
  return whole;
}

const bytes = (...values: number[]): Uint8Array => new Uint8Array(values);

describe("splitLines framing", () => {
  it("splits on \\n and on \\r\\n, also when \\r and \\n arrive in different chunks", async () => {
    const input = utf8('{"a":1}\r\n{"b":2}\n{"c":3}\r\n');
    expect(await linesEverySplit(input)).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  it("strips only one \\r before \\n and keeps a \\r inside a line", async () => {
    expect(await linesOf([utf8("a\rb\r\r\nc\n")])).toEqual(["a\rb\r", "c"]);
  });

  it("skips empty, \\r-only and whitespace-only lines", async () => {
    const input = utf8('\n\r\n  \n\t \r\n{"x":1}\n\n \t\n{"y":2}\n   \r\n');
    expect(await linesEverySplit(input)).toEqual(['{"x":1}', '{"y":2}']);
  });

  it("keeps a line that merely starts with white space", async () => {
    expect(await linesOf([utf8(' {"x":1}\n')])).toEqual([' {"x":1}']);
  });

  it("reassembles a code point split across chunks at every byte", async () => {
    const input = utf8('{"s":"é€😀\u2028\uFFFD"}\n');
    expect(await linesEverySplit(input)).toEqual(['{"s":"é€😀\u2028\uFFFD"}']);
  });

  it("delivers an unterminated last line at end of input", async () => {
    expect(await linesEverySplit(utf8('{"a":1}\n{"b":"é"}'))).toEqual(['{"a":1}', '{"b":"é"}']);
    expect(await linesOf([utf8('{"b":2}\r')])).toEqual(['{"b":2}']);
  });

  it("drops a byte order mark at the start of input only", async () => {
    const bom = bytes(0xef, 0xbb, 0xbf);
    expect(await linesEverySplit(concatBytes([bom, utf8("[1]\n"), bom, utf8("[2]\n")]))).toEqual([
      "[1]",
      "\uFEFF[2]",
    ]);
  });

  it("yields nothing for empty input", async () => {
    expect(await linesOf([])).toEqual([]);
    expect(await linesOf([new Uint8Array(0)])).toEqual([]);
  });

  it("defaults maxMessageBytes to 16 MiB", () => {
    expect(DEFAULT_MAX_MESSAGE_BYTES).toBe(16 * MiB);
  });
});

describe("splitLines invalid UTF-8", () => {
  const cases: Array<[string, number[]]> = [
    ["a lone 0xFF", [0xff]],
    ["a lone continuation byte", [0x80]],
    ["a truncated sequence", [0xe2, 0x82]],
    ["a truncated 4-byte sequence", [0xf0, 0x9f, 0x98]],
    ["an overlong encoding of '/'", [0xc0, 0xaf]],
    ["an overlong 3-byte encoding", [0xe0, 0x80, 0xaf]],
    ["an encoded high surrogate", [0xed, 0xa0, 0x80]],
    ["an encoded low surrogate", [0xed, 0xbf, 0xbf]],
    ["a code point above U+10FFFF", [0xf4, 0x90, 0x80, 0x80]],
    ["a 0xF5 lead byte", [0xf5, 0x80, 0x80, 0x80]],
  ];
  for (const [name, bad] of cases) {
    it(`reports ${name} as one InvalidUtf8Error for exactly that line`, async () => {
      const input = concatBytes([utf8('{"a":1}\n{"s":"x'), bytes(...bad), utf8('y"}\n{"c":3}\n')]);
      expect(await linesEverySplit(input)).toEqual(['{"a":1}', "BAD_UTF8", '{"c":3}']);
    });
  }

  it("reports a sequence cut by \\n on the line it starts, and reads the next line intact", async () => {
    const input = concatBytes([utf8('{"a":1}\n{"s":"'), bytes(0xe2, 0x82), utf8('\n{"c":3}\n')]);
    expect(await linesEverySplit(input)).toEqual(['{"a":1}', "BAD_UTF8", '{"c":3}']);
  });

  it("reports a sequence cut by \\r\\n on its own line", async () => {
    const input = concatBytes([utf8("{}\n"), bytes(0xf0, 0x9f), utf8("\r\n[]\n")]);
    expect(await linesEverySplit(input)).toEqual(["{}", "BAD_UTF8", "[]"]);
  });

  it("reports a sequence truncated by end of input", async () => {
    const input = concatBytes([utf8("{}\n[1"), bytes(0xe2, 0x82)]);
    expect(await linesEverySplit(input)).toEqual(["{}", "BAD_UTF8"]);
  });

  it("reports each bad line once and keeps good lines around several bad ones", async () => {
    const input = concatBytes([
      bytes(0xff, 0xfe),
      utf8("\n[1]\n"),
      bytes(0xc3),
      utf8("\n"),
      bytes(0xc3),
      utf8("\n[2]\n"),
      bytes(0x80, 0x80),
      utf8("[3]"),
    ]);
    expect(await linesEverySplit(input)).toEqual([
      "BAD_UTF8",
      "[1]",
      "BAD_UTF8",
      "BAD_UTF8",
      "[2]",
      "BAD_UTF8",
    ]);
  });

  it("finds a bad byte anywhere in a chunk that starts at any offset of its buffer", async () => {
    for (let pad = 0; pad < 4; pad++) {
      for (let at = 0; at < 40; at++) {
        const line = utf8("[" + "1".repeat(38) + "]");
        const bad = line.slice();
        bad[at + 1 > 38 ? 38 : at + 1] = 0xff;
        const good = concatBytes([line.subarray(0, 10), utf8("é"), line.subarray(10)]);
        const content = concatBytes([bad, utf8("\n"), good, utf8("\n")]);
        const backing = new Uint8Array(pad + content.byteLength);
        backing.set(content, pad);
        const chunk = backing.subarray(pad);
        const events = show(await collect(splitLines(readableOf([chunk]))));
        expect(events, `pad ${pad}, bad byte at ${at}`).toEqual(["BAD_UTF8", new TextDecoder().decode(good)]);
      }
    }
  });

  it("passes a legitimately encoded U+FFFD", async () => {
    const input = concatBytes([utf8('{"s":"'), bytes(0xef, 0xbf, 0xbd), utf8('"}\n')]);
    expect(await linesEverySplit(input)).toEqual(['{"s":"\uFFFD"}']);
  });

  it("passes the largest code points and the last ones before the surrogates", async () => {
    const input = utf8('["\u{10FFFF}","\uD7FF","\uE000","\u0080","\u07FF","\u0800","\uFFFF","\u{10000}"]\n');
    expect(await linesEverySplit(input)).toEqual([
      '["\u{10FFFF}","\uD7FF","\uE000","\u0080","\u07FF","\u0800","\uFFFF","\u{10000}"]',
    ]);
  });
});

describe("splitLines maxMessageBytes", () => {
  it("accepts a line of exactly maxMessageBytes and rejects one byte more, then reads on", async () => {
    const max = 64;
    const exact = "x".repeat(max);
    const over = "y".repeat(max + 1);
    const input = utf8(`${exact}\n${over}\n${exact}\r\n[1]`);
    expect(await linesEverySplit(input, max)).toEqual([exact, "TOO_LARGE", exact, "[1]"]);
  });

  it("counts bytes, not characters: a multi-byte line at the limit passes, one byte over fails", async () => {
    const max = 12;
    const fits = "€€€€"; // 12 bytes
    const over = "€€€€a"; // 13 bytes
    expect(await linesEverySplit(utf8(`${fits}\n${over}\n[]\n`), max)).toEqual([fits, "TOO_LARGE", "[]"]);
  });

  it("does not count the \\r of a \\r\\n terminator against the limit", async () => {
    const max = 16;
    const exact = "z".repeat(max);
    expect(await linesEverySplit(utf8(`${exact}\r\n${exact}\r\n`), max)).toEqual([exact, exact]);
    // A \r that is not followed by \n is content, and one byte too many.
    expect(await linesEverySplit(utf8(`${exact}\rq\n[]\n`), max)).toEqual(["TOO_LARGE", "[]"]);
  });

  it("reports an oversize line as soon as the limit is crossed, before its newline arrives", async () => {
    const max = 100;
    const source = manualReadable();
    const reader = splitLines(source.readable, { maxMessageBytes: max }).getReader();
    source.push(utf8("[1]\n"));
    expect(await reader.read()).toEqual({ done: false, value: { kind: "line", text: "[1]", bytes: 3 } });
    source.push(utf8("a".repeat(max)));
    source.push(utf8("b"));
    const early = await reader.read();
    expect(early.value?.kind).toBe("error");
    expect((early.value as { error: unknown }).error).toBeInstanceOf(MessageTooLargeError);
    expect((early.value as { error: MessageTooLargeError }).error.limitBytes).toBe(max);
    source.push(utf8("c".repeat(10 * max)));
    source.push(utf8("d\n[2]\n"));
    expect(await reader.read()).toEqual({ done: false, value: { kind: "line", text: "[2]", bytes: 3 } });
    source.end();
    expect((await reader.read()).done).toBe(true);
  });

  it("reports an oversize unterminated last line once", async () => {
    expect(await linesOf([utf8("[0]\n" + "q".repeat(50))], 10)).toEqual(["[0]", "TOO_LARGE"]);
  });

  it("reports an oversize line that also holds invalid UTF-8 once, as too large", async () => {
    const input = concatBytes([utf8("a".repeat(20)), bytes(0xff), utf8("b".repeat(20) + "\n[5]\n")]);
    expect(await linesEverySplit(input, 10)).toEqual(["TOO_LARGE", "[5]"]);
  });

  it("drops a discarded line as its chunks arrive: one error at the crossing, nothing until its newline", async () => {
    const max = 1024;
    const chunk = new Uint8Array(4 * KiB).fill(0x61);
    const chunks = [utf8("[1]\n"), chunk, chunk, chunk, concatBytes([chunk, utf8("\n[2]\n")])];
    const batches = await collect(readableOf(chunks).pipeThrough(new LineSplitter({ maxMessageBytes: max })));
    expect(batches.map(show)).toEqual([["[1]"], ["TOO_LARGE"], ["[2]"]]);
  });

  it("keeps memory bounded while a peer sends 1 GB without a newline", async () => {
    const max = 1 * MiB;
    const total = 1024 * MiB;
    const chunk = new Uint8Array(64 * KiB).fill(0x78);
    const baseline = retainedBytes();
    let peak = 0;
    let nextSample = 0;
    const source = repeatedChunkReadable(chunk, total, (sent) => {
      if (sent >= nextSample) {
        peak = Math.max(peak, retainedBytes() - baseline);
        nextSample += 64 * MiB;
      }
    });
    const tailed = source.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({ flush: (c) => c.enqueue(utf8("\n[42]\n")) }),
    );
    const events: Shown[] = [];
    const reader = splitLines(tailed, { maxMessageBytes: max }).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      events.push(...show([value]));
    }
    peak = Math.max(peak, retainedBytes() - baseline);
    expect(events).toEqual(["TOO_LARGE", "[42]"]);
    expect(peak).toBeLessThan(max + 4 * MiB);
  });
});

describe("LineReader", () => {
  it("hands out the events of each chunk one at a time, then undefined at end of input", async () => {
    const source = manualReadable();
    const reader = new LineReader(source.readable, { maxMessageBytes: 8 });
    source.push(utf8('[1]\n[2]\n"too long!"\n'));
    expect(await reader.read()).toEqual({ kind: "line", text: "[1]", bytes: 3 });
    expect(await reader.read()).toEqual({ kind: "line", text: "[2]", bytes: 3 });
    expect((await reader.read())?.kind).toBe("error");
    source.push(utf8("[3]"));
    source.end();
    expect(await reader.read()).toEqual({ kind: "line", text: "[3]", bytes: 3 });
    expect(await reader.read()).toBeUndefined();
  });

  it("pulls a chunk only when asked for a line and none is left, and keeps a line cut across chunks", async () => {
    let pulls = 0;
    const chunks = [utf8("[1]\n[2]\n[3"), utf8("]\n")];
    const readable = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          pulls++;
          const next = chunks.shift();
          if (next) controller.enqueue(next);
          else controller.close();
        },
      },
      { highWaterMark: 0 },
    );
    const reader = new LineReader(readable);
    await flushMicrotasks();
    expect(pulls).toBe(0);
    expect(await reader.read()).toEqual({ kind: "line", text: "[1]", bytes: 3 });
    expect(await reader.read()).toEqual({ kind: "line", text: "[2]", bytes: 3 });
    expect(pulls).toBe(1);
    expect(await reader.read()).toEqual({ kind: "line", text: "[3]", bytes: 3 });
    expect(pulls).toBe(2);
    expect(await reader.read()).toBeUndefined();
  });

  it("ends a read pending at cancel with undefined, not with the unfinished line", async () => {
    const source = manualReadable();
    const reader = new LineReader(source.readable);
    source.push(utf8('{"partial":'));
    const pending = reader.read();
    await flushMicrotasks();
    await reader.cancel("done");
    expect(await pending).toBeUndefined();
    expect(await reader.read()).toBeUndefined();
  });

  it("releases the byte stream on cancel", async () => {
    let cancelled: unknown;
    const readable = new ReadableStream<Uint8Array>({ cancel: (reason) => void (cancelled = reason) });
    const reader = new LineReader(readable);
    await reader.cancel("done");
    await flushMicrotasks();
    expect(cancelled).toBe("done");
  });
});
