import { describe, expect, it } from "vitest";
import { JsonRpcConnection } from "../../../src/rpc/json_rpc_connection.ts";
import { JsonRpcError } from "../../../src/wire/errors.ts";
import { createDuplexPair } from "../../../testing/duplex_pair.ts";
import { FakeTimeProvider } from "../../../testing/fake_time_provider.ts";

describe("JsonRpcConnection basics", () => {
  it("answers requests both ways and reports handler errors as replies", async () => {
    const [a, b] = createDuplexPair();
    const server = new JsonRpcConnection(b)
      .handle("add", (p) => (p as { a: number; b: number }).a + (p as { a: number; b: number }).b)
      .handle("fail", () => {
        throw new JsonRpcError(-32602, "Bad params", { x: 1 });
      })
      .start();
    const client = new JsonRpcConnection(a).start();
    expect(await client.request("add", { a: 2, b: 3 })).toBe(5);
    await expect(client.request("fail")).rejects.toMatchObject({
      code: -32602,
      message: "Bad params",
      data: { x: 1 },
    });
    await expect(client.request("nope")).rejects.toMatchObject({ code: -32601 });
    await client.close();
    const info = await server.closed;
    expect(info.reason).toBe("eof");
  });

  it("delivers replies of handlers that finish within the EOF grace and aborts the rest", async () => {
    const time = new FakeTimeProvider();
    const [a, b] = createDuplexPair();
    const server = new JsonRpcConnection(b, { timeProvider: time });
    const waitMs = (ms: number, _signal?: AbortSignal) =>
      new Promise<void>((resolve) => {
        time.setTimer(resolve, ms);
      });
    let aborted20 = false;
    server.handle("sleep", async (p, ctx) => {
      const ms = (p as { ms: number }).ms;
      if (ms === 20_000) ctx.signal.addEventListener("abort", () => (aborted20 = true));
      await waitMs(ms);
      return { ms };
    }).start();
    const writer = a.writable.getWriter();
    const enc = new TextEncoder();
    await writer.write(
      enc.encode(
        [1000, 7000, 20000].map((ms, i) =>
          JSON.stringify({ jsonrpc: "2.0", id: i + 1, method: "sleep", params: { ms } })
        ).join("\n") + "\n",
      ),
    );
    await writer.close();
    const reader = a.readable.pipeThrough(
      new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>,
    ).getReader();
    let text = "";
    const reading = (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += value;
      }
    })();
    await time.advance(1_000);
    await time.advance(4_000);
    expect(aborted20).toBe(true);
    await time.advance(2_000);
    await time.advance(3_000);
    const info = await server.closed;
    await reading;
    expect(info.reason).toBe("eof");
    const lines = text.trim().split("\n").map((l) => JSON.parse(l));
    expect(lines.map((l) => l.id)).toEqual([1, 2]);
  });
});

describe("JsonRpcConnection answerInvalidInput", () => {
  for (const answer of [true, false]) {
    it(`${answer ? "answers" : "only reports"} bad input lines when answerInvalidInput is ${answer}`, async () => {
      const [a, b] = createDuplexPair();
      const reports: Error[] = [];
      const connection = new JsonRpcConnection(b, {
        answerInvalidInput: answer,
        onReport: (e) => reports.push(e),
      })
        .handle("echo", (p) => p)
        .start();
      const writer = a.writable.getWriter();
      await writer.write(
        new TextEncoder().encode(
          'Server starting on stdio...\n{"not":"json-rpc"}\n{"jsonrpc":"2.0","id":1,"method":"echo","params":{"x":1}}\n',
        ),
      );
      await writer.close();
      await connection.closed;
      let text = "";
      for await (const chunk of a.readable) text += new TextDecoder().decode(chunk as Uint8Array);
      const replies = text.trim().split("\n").map((l) => JSON.parse(l));
      expect(reports).toHaveLength(2);
      expect(replies.map((r) => r.error?.code ?? r.id)).toEqual(answer ? [-32700, -32600, 1] : [1]);
    });
  }
});
