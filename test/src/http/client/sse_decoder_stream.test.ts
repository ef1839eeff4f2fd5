import { describe, expect, it } from "vitest";
import { EventTooLargeError } from "../../../../src/http/errors.ts";
import {
  DEFAULT_MAX_EVENT_BYTES,
  SseDecoderStream,
  type SseDecoderStreamOptions,
  type SseEvent,
} from "../../../../src/http/client/sse_decoder_stream.ts";
import { InvalidOptionError, MessageTooLargeError } from "../../../../src/wire/errors.ts";

const encoder = new TextEncoder();

function bytesOf(input: string | Uint8Array): Uint8Array {
  return typeof input === "string" ? encoder.encode(input) : input;
}

/** Feeds `chunks` through a fresh decoder; returns the events, or throws the stream's error. */
async function decode(
  chunks: (string | Uint8Array)[],
  options: SseDecoderStreamOptions = {},
): Promise<SseEvent[]> {
  const decoder = new SseDecoderStream(options);
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(bytesOf(chunk));
      controller.close();
    },
  });
  const events: SseEvent[] = [];
  for await (const event of source.pipeThrough(decoder)) events.push(event);
  return events;
}

/** Every way of cutting `bytes` in two, and byte by byte. */
function splits(bytes: Uint8Array): Uint8Array[][] {
  const out: Uint8Array[][] = [Array.from(bytes, (b) => new Uint8Array([b]))];
  for (let i = 0; i <= bytes.length; i++) out.push([bytes.subarray(0, i), bytes.subarray(i)]);
  return out;
}

const msg = (data: string, type = "message", lastEventId = ""): SseEvent => ({ type, data, lastEventId });

describe("SseDecoderStream (WHATWG event-stream interpretation)", () => {
  it("dispatches an event at a blank line", async () => {
    expect(await decode(["data: hello\n\n"])).toEqual([msg("hello")]);
  });

  it("joins multi-line data with LF", async () => {
    expect(await decode(["data: a\ndata: b\ndata:\ndata: c\n\n"])).toEqual([msg("a\nb\n\nc")]);
  });

  it("accepts LF, CR and CRLF line ends, mixed", async () => {
    expect(await decode(["data: a\r\ndata: b\rdata: c\n\r\ndata: d\r\r"])).toEqual([
      msg("a\nb\nc"),
      msg("d"),
    ]);
  });

  it("treats a CR and an LF split across chunks as one line end", async () => {
    expect(await decode(["data: a\r", "\ndata: b\r", "\n\r", "\n"])).toEqual([msg("a\nb")]);
  });

  it("ignores comment lines, and passes them to onComment", async () => {
    const comments: string[] = [];
    expect(await decode([":\n: keep-alive\ndata: x\n:comment\n\n"], { onComment: (c) => comments.push(c) }))
      .toEqual([msg("x")]);
    expect(comments).toEqual(["", "keep-alive", "comment"]);
    expect(await decode([":only a comment\n\n"])).toEqual([]);
  });

  it("strips exactly one space after the colon", async () => {
    expect(await decode(["data:x\n\ndata:  x\n\ndata\n\n"])).toEqual([msg("x"), msg(" x"), msg("")]);
  });

  it("compares field names case-sensitively and ignores unknown fields", async () => {
    expect(await decode(["Data: x\nDATA: y\nfoo: bar\ndata: z\n\n"])).toEqual([msg("z")]);
  });

  it("uses the event field as the type, and message when it is empty or absent", async () => {
    expect(await decode(["event: ping\ndata: 1\n\nevent:\ndata: 2\n\ndata: 3\n\n"])).toEqual([
      msg("1", "ping"),
      msg("2"),
      msg("3"),
    ]);
  });

  it("dispatches nothing for a block without data", async () => {
    expect(await decode(["event: x\n\n\n\nid: 1\n\n"])).toEqual([]);
  });

  it("keeps the last event ID across events, updates it from a block without data, and resets it with an empty id", async () => {
    const decoder = new SseDecoderStream();
    const events: SseEvent[] = [];
    const input = "id: 1\ndata: a\n\ndata: b\n\nid: 2\n\ndata: c\n\nid\ndata: d\n\n";
    for await (const e of new Blob([input]).stream().pipeThrough(decoder)) events.push(e);
    expect(events).toEqual([
      msg("a", "message", "1"),
      msg("b", "message", "1"),
      msg("c", "message", "2"),
      msg("d", "message", ""),
    ]);
    expect(decoder.lastEventId).toBe("");
  });

  it("ignores an id containing NUL", async () => {
    expect(await decode(["id: 1\ndata: a\n\nid: 2\u00003\ndata: b\n\n"])).toEqual([
      msg("a", "message", "1"),
      msg("b", "message", "1"),
    ]);
  });

  it("takes retry only when it is all digits", async () => {
    const retries: number[] = [];
    const decoder = new SseDecoderStream({ onRetry: (ms) => retries.push(ms) });
    const input = "retry: 3000\n\nretry: 12a\n\nretry: -5\n\nretry:\n\nretry: 1.5\n\nretry: 250\ndata: x\n\n";
    const events: SseEvent[] = [];
    for await (const e of new Blob([input]).stream().pipeThrough(decoder)) events.push(e);
    expect(retries).toEqual([3000, 250]);
    expect(decoder.retry).toBe(250);
    expect(events).toEqual([msg("x")]);
  });

  it("discards an unfinished event at the end of the stream", async () => {
    expect(await decode(["data: done\n\ndata: cut"])).toEqual([msg("done")]);
    expect(await decode(["data: done\n\ndata: cut\n"])).toEqual([msg("done")]);
  });

  describe("byte order mark", () => {
    it("ignores one leading BOM, also split across chunks", async () => {
      const bom = new Uint8Array([0xef, 0xbb, 0xbf]);
      expect(await decode([bom, "data: x\n\n"])).toEqual([msg("x")]);
      expect(
        await decode([bom.subarray(0, 1), bom.subarray(1, 2), new Uint8Array([0xbf, 0x64]), "ata: x\n\n"]),
      ).toEqual([msg("x")]);
    });

    it("keeps a second BOM as part of the first field name", async () => {
      expect(await decode(["\ufeff\ufeffdata: x\n\ndata: y\n\n"])).toEqual([msg("y")]);
    });

    it("keeps a BOM that is not at the start", async () => {
      expect(await decode(["data: a\ufeff\n\n"])).toEqual([msg("a\ufeff")]);
    });

    it("does not mistake the text \u00ef\u00bb\u00bf for a BOM", async () => {
      expect(await decode(["\u00ef\u00bb\u00bfdata: x\n\ndata: y\n\n"])).toEqual([msg("y")]);
    });
  });

  describe("chunking", () => {
    const sample =
      'id: 7\r\nevent: note\ndata: {"t":"天気 🎉"}\r\n: c\rdata: second line\n\ndata: 2\r\n\r\nretry: 10\n\n';
    const expected = [msg('{"t":"天気 🎉"}\nsecond line', "note", "7"), msg("2", "message", "7")];

    it("gives the same events for every split of the stream, including inside code points and between CR and LF", async () => {
      expect(await decode([sample])).toEqual(expected);
      for (const chunks of splits(encoder.encode(sample))) {
        expect(await decode(chunks)).toEqual(expected);
      }
    });

    it("replaces bytes that are not UTF-8 with U+FFFD", async () => {
      expect(await decode([new Uint8Array([0x64, 0x61, 0x74, 0x61, 0x3a, 0xff, 0x0a, 0x0a])])).toEqual([
        msg("\ufffd"),
      ]);
    });

    it("replaces a code point cut by the end of the stream, which then ends an unfinished event", async () => {
      expect(await decode(["data: a\n\ndata: ", new Uint8Array([0xe5, 0xa4])])).toEqual([msg("a")]);
    });
  });

  describe("maxEventBytes", () => {
    it("defaults to 4 MiB and refuses a bad value", () => {
      expect(new SseDecoderStream().maxEventBytes).toBe(DEFAULT_MAX_EVENT_BYTES);
      expect(DEFAULT_MAX_EVENT_BYTES).toBe(4 * 1024 * 1024);
      expect(() => new SseDecoderStream({ maxEventBytes: 0 })).toThrow(InvalidOptionError);
    });

    it("accepts an event of exactly maxEventBytes, ASCII or multi-byte, in one line or many", async () => {
      expect((await decode([`data: ${"a".repeat(1000)}\n\n`], { maxEventBytes: 1000 }))[0]!.data)
        .toHaveLength(1000);
      const lines = Array.from({ length: 10 }, () => "b".repeat(99)).map((l) => `data: ${l}\n`).join("");
      expect((await decode([`${lines}\n`], { maxEventBytes: 999 }))[0]!.data).toHaveLength(999);
      const wide = "é".repeat(500); // 1000 bytes
      expect((await decode([`data: ${wide}\n\n`], { maxEventBytes: 1000 }))[0]!.data).toBe(wide);
    });

    it("refuses an event of maxEventBytes + 1, ASCII or multi-byte", async () => {
      await expect(decode([`data: ${"a".repeat(1001)}\n\n`], { maxEventBytes: 1000 })).rejects.toBeInstanceOf(
        EventTooLargeError,
      );
      await expect(decode([`data: ${"é".repeat(500)}a\n\n`], { maxEventBytes: 1000 })).rejects.toMatchObject({
        code: "message_too_large",
        limitBytes: 1000,
      });
      const error = await decode([`data: ${"a".repeat(1001)}\n\n`], { maxEventBytes: 1000 }).catch((
        e: unknown,
      ) => e);
      expect(error).toBeInstanceOf(MessageTooLargeError);
      expect((error as Error).message).toBe("An SSE event exceeds maxEventBytes (1000 bytes)");
    });

    it("errors an endless line before it is buffered whole", async () => {
      const decoder = new SseDecoderStream({ maxEventBytes: 10_000 });
      let pulls = 0;
      const endless = new ReadableStream<Uint8Array>(
        {
          pull(controller) {
            pulls++;
            controller.enqueue(pulls === 1 ? encoder.encode("data: ") : new Uint8Array(1000).fill(0x61));
          },
        },
        { highWaterMark: 0 },
      );
      const reader = endless.pipeThrough(decoder).getReader();
      await expect(reader.read()).rejects.toBeInstanceOf(EventTooLargeError);
      expect(pulls).toBeLessThanOrEqual(14);
    });

    it("errors endless comment lines and endless multi-line events too", async () => {
      const comment = [":", ...Array.from({ length: 5 }, () => "c".repeat(1000)), "\n"];
      await expect(decode(comment, { maxEventBytes: 1000, onComment: () => {} })).rejects.toBeInstanceOf(
        EventTooLargeError,
      );
      expect(await decode(comment, { maxEventBytes: 1000 })).toEqual([]); // without onComment the line is skipped, not held
      const lines = Array.from({ length: 100 }, () => `data: ${"d".repeat(50)}\n`);
      await expect(decode(lines, { maxEventBytes: 1000 })).rejects.toBeInstanceOf(EventTooLargeError);
    });

    it("does not count earlier events against a later one", async () => {
      const events = Array.from({ length: 50 }, (_, i) => `data: ${String(i).padStart(900, "0")}\n\n`);
      expect(await decode(events, { maxEventBytes: 1000 })).toHaveLength(50);
    });
  });
});
