// A JSON response body is read under a cap, like an SSE event: a hostile or broken server cannot make
// the client hold a body of any size (issue 25.16: a 256 MiB body cost the client 850+ MiB).
import { describe, expect, it } from "vitest";
import { ContextClient } from "../../../../src/client/context_client.ts";
import { EraCache } from "../../../../src/client/era_cache.ts";
import { httpTransport } from "../../../../src/http/client/http_client_transport.ts";
import { HttpEndpoint } from "../../../../src/http/client/http_endpoint.ts";
import { ResponseTooLargeError } from "../../../../src/http/errors.ts";
import { HttpStatusError } from "../../../../src/http/client/http_client_errors.ts";
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  readResponseExcerpt,
  readResponseText,
} from "../../../../src/http/client/read_response_text.ts";
import { InvalidOptionError, MessageTooLargeError } from "../../../../src/wire/errors.ts";
import { DISCOVER, FakeFetch, result } from "../../../helpers/fake_fetch.ts";

/** A body of `total` bytes of "a" in chunks of `chunk`, counting how many bytes were pulled from it. */
function streamed(total: number, chunk: number, headers: Record<string, string> = {}) {
  const pulled = { bytes: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const n = Math.min(chunk, total - pulled.bytes);
      if (n <= 0) return controller.close();
      pulled.bytes += n;
      controller.enqueue(new Uint8Array(n).fill(0x61));
    },
    cancel() {
      pulled.cancelled = true;
    },
  }, { highWaterMark: 0 });
  return {
    response: new Response(body, { headers: { "Content-Type": "application/json", ...headers } }),
    pulled,
  };
}

describe("readResponseText", () => {
  it("defaults to 4 MiB", () => {
    expect(DEFAULT_MAX_RESPONSE_BYTES).toBe(4 * 1024 * 1024);
    expect(new HttpEndpoint("http://h.test/mcp").maxResponseBytes).toBe(DEFAULT_MAX_RESPONSE_BYTES);
    expect(() => new HttpEndpoint("http://h.test/mcp", { maxResponseBytes: 0 })).toThrow(InvalidOptionError);
  });

  it("reads a body of exactly the cap (the bound is not hit early)", async () => {
    const { response } = streamed(1000, 64);
    expect(await readResponseText(response, 1000)).toBe("a".repeat(1000));
  });

  it("stops at the first chunk past the cap and cancels the rest, with a typed error", async () => {
    const { response, pulled } = streamed(10_000_000, 1000);
    const error = await readResponseText(response, 4000).catch((e) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error).toBeInstanceOf(MessageTooLargeError);
    expect(error.code).toBe("message_too_large");
    expect(error.limitBytes).toBe(4000);
    expect(error.message).toBe("The response body exceeds maxResponseBytes (4000 bytes)");
    expect(pulled.bytes).toBeLessThanOrEqual(5000);
    expect(pulled.cancelled).toBe(true);
  });

  it("refuses a Content-Length over the cap without reading", async () => {
    const { response, pulled } = streamed(10_000, 1000, { "Content-Length": "10000" });
    const error = await readResponseText(response, 4000).catch((e) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error.declaredBytes).toBe(10_000);
    expect(pulled.bytes).toBe(0);
  });

  it("an error page is read only up to its excerpt", async () => {
    const { response, pulled } = streamed(10_000_000, 1000);
    const excerpt = await readResponseExcerpt(response, 2500);
    expect(excerpt).toEqual({ text: "a".repeat(2500), cut: true });
    expect(pulled.bytes).toBeLessThanOrEqual(3000);
  });
});

describe("httpTransport maxResponseBytes", () => {
  const huge = (id: unknown, bytes: number) =>
    new Response(JSON.stringify({ jsonrpc: "2.0", id, result: { pad: "x".repeat(bytes) } }), {
      headers: { "Content-Type": "application/json" },
    });
  const fakeWith = (padBytes: number) =>
    new FakeFetch((req) =>
      req.body?.method === "server/discover" ? result(req.body.id, DISCOVER) : huge(req.body.id, padBytes)
    );

  it("fails a request whose JSON reply is over the cap with ResponseTooLargeError, and serves one under it", async () => {
    const client = await ContextClient.connect(
      httpTransport("http://h.test/mcp", { fetch: fakeWith(50_000).fetch, maxResponseBytes: 40_000 }),
      { eraCache: new EraCache(), onReport: () => {} },
    );
    await expect(client.request("tools/list", {})).rejects.toBeInstanceOf(ResponseTooLargeError);
    await client.close();
    const roomy = await ContextClient.connect(
      httpTransport("http://h.test/mcp", { fetch: fakeWith(50_000).fetch, maxResponseBytes: 60_000 }),
      { eraCache: new EraCache(), onReport: () => {} },
    );
    expect(((await roomy.request("tools/list", {})) as { pad: string }).pad).toHaveLength(50_000);
    await roomy.close();
  });

  it("an error status quotes a bounded excerpt of its body", async () => {
    const fake = new FakeFetch((req) =>
      req.body?.method === "server/discover"
        ? result(req.body.id, DISCOVER)
        : new Response("<html>" + "x".repeat(1_000_000), {
          status: 502,
          headers: { "Content-Type": "text/html" },
        })
    );
    const client = await ContextClient.connect(httpTransport("http://h.test/mcp", { fetch: fake.fetch }), {
      eraCache: new EraCache(),
      onReport: () => {},
    });
    const error = (await client.request("tools/list", {}).catch((e: unknown) => e)) as HttpStatusError;
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error.status).toBe(502);
    expect(error.body.length).toBeLessThanOrEqual(200);
    await client.close();
  });
});
