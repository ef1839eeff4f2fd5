import { describe, expect, it } from "vitest";
import { encodeSseEvent } from "../../../../../src/http/server/sse/encode_sse_event.ts";
import { SseDecoderStream, type SseEvent } from "../../../../../src/http/client/sse_decoder_stream.ts";
import { ProtocolError } from "../../../../../src/wire/errors.ts";

describe("encodeSseEvent", () => {
  it("writes one data line per line of the payload, whatever the line breaks", () => {
    expect(encodeSseEvent({ data: "a\nb\r\nc\rd" })).toBe("data: a\ndata: b\ndata: c\ndata: d\n\n");
    expect(encodeSseEvent({ data: "" })).toBe("data: \n\n");
    expect(encodeSseEvent({ data: "\n" })).toBe("data: \ndata: \n\n");
    expect(encodeSseEvent({ data: " lead" })).toBe("data:  lead\n\n");
  });

  it("writes id, event and retry lines before the data", () => {
    expect(encodeSseEvent({ id: "7", event: "message", retry: 1000, data: "{}" })).toBe(
      "id: 7\nevent: message\nretry: 1000\ndata: {}\n\n",
    );
    expect(encodeSseEvent({ id: "", data: "x" })).toBe("id: \ndata: x\n\n");
  });

  it("refuses line breaks or NUL in id and event, and a bad retry", () => {
    expect(() => encodeSseEvent({ id: "1\n2", data: "" })).toThrow(ProtocolError);
    expect(() => encodeSseEvent({ event: "a\rb", data: "" })).toThrow(/event/);
    expect(() => encodeSseEvent({ id: "a\0", data: "" })).toThrow(ProtocolError);
    expect(() => encodeSseEvent({ retry: -1, data: "" })).toThrow(ProtocolError);
    expect(() => encodeSseEvent({ retry: 1.5, data: "" })).toThrow(ProtocolError);
  });

  it("round-trips through SseDecoderStream", async () => {
    const payloads = [
      "plain",
      "multi\nline\r\nwith\rbreaks",
      "",
      "\n\n",
      ": not a comment",
      "data: nested",
      "天気 🎉",
      " spaced ",
    ];
    const bytes = new TextEncoder().encode(
      payloads.map((data, i) => encodeSseEvent({ data, id: String(i), event: i % 2 ? "odd" : undefined }))
        .join(""),
    );
    const events: SseEvent[] = [];
    const reader = new Blob([bytes]).stream().pipeThrough(new SseDecoderStream()).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      events.push(value);
    }
    const normalize = (s: string) => s.replace(/\r\n|\r/g, "\n");
    expect(events.map((e) => e.data)).toEqual(payloads.map(normalize));
    expect(events.map((e) => e.type)).toEqual(payloads.map((_, i) => (i % 2 ? "odd" : "message")));
    expect(events.map((e) => e.lastEventId)).toEqual(payloads.map((_, i) => String(i)));
  });
});
