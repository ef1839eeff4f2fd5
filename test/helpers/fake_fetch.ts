// deno-lint-ignore-file no-explicit-any -- tests reach into loosely typed peer objects
// A scripted `fetch` for HTTP client unit tests: every call is recorded, and a responder turns it
// into a Response. SSE bodies can be split at chosen byte offsets, held open, or broken.
export interface SeenRequest {
  method: string;
  url: string;
  headers: Headers;
  body: any;
  signal: AbortSignal | undefined;
}

export type Responder = (request: SeenRequest, index: number) => Response | Promise<Response>;

export class FakeFetch {
  readonly calls: SeenRequest[] = [];
  responder: Responder;
  constructor(responder: Responder) {
    this.responder = responder;
  }

  readonly fetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const text = typeof init.body === "string" ? init.body : undefined;
    const seen: SeenRequest = {
      method: init.method ?? "GET",
      url: String(input),
      headers: new Headers(init.headers),
      body: text === undefined ? undefined : JSON.parse(text),
      signal: init.signal ?? undefined,
    };
    this.calls.push(seen);
    init.signal?.throwIfAborted();
    return this.responder(seen, this.calls.length - 1);
  };

  /** The calls whose JSON body has `method` (or, for GET/DELETE, whose HTTP method is it). */
  of(method: string): SeenRequest[] {
    return this.calls.filter((c) =>
      c.body?.method === method || (c.body === undefined && c.method === method)
    );
  }
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });
}

export function result(id: unknown, value: unknown, headers: Record<string, string> = {}): Response {
  return json({ jsonrpc: "2.0", id, result: value }, 200, headers);
}

export function rpcError(id: unknown, code: number, message: string, status = 400, data?: unknown): Response {
  return json(
    { jsonrpc: "2.0", id, error: data === undefined ? { code, message } : { code, message, data } },
    status,
  );
}

/** One SSE frame for a JSON-RPC message (`data:` lines), with optional `id` and `retry`. */
export function frame(message: unknown, extra: { id?: string; retry?: number; crlf?: boolean } = {}): string {
  const nl = extra.crlf ? "\r\n" : "\n";
  let out = "";
  if (extra.id !== undefined) out += `id: ${extra.id}${nl}`;
  if (extra.retry !== undefined) out += `retry: ${extra.retry}${nl}`;
  out += message === undefined ? `data:${nl}` : `data: ${JSON.stringify(message)}${nl}`;
  return out + nl;
}

export interface SseControl {
  response: Response;
  push(text: string): void;
  end(): void;
  fail(error: unknown): void;
  cancelled: Promise<unknown>;
}

/** An SSE response whose body the test writes to (held open until `end`). */
export function sse(headers: Record<string, string> = {}): SseControl {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let onCancel!: (reason: unknown) => void;
  const cancelled = new Promise((resolve) => (onCancel = resolve));
  const body = new ReadableStream<Uint8Array>({
    start: (c) => void (controller = c),
    cancel: (reason) => onCancel(reason),
  });
  const encoder = new TextEncoder();
  return {
    response: new Response(body, {
      status: 200,
      headers: { "Content-Type": "text/event-stream", ...headers },
    }),
    push: (text) => controller.enqueue(encoder.encode(text)),
    end: () => controller.close(),
    fail: (error) => controller.error(error),
    cancelled,
  };
}

/** An SSE response with `text` as its whole body, split into chunks at every `every` bytes. */
export function sseSplit(text: string, every: number, headers: Record<string, string> = {}): Response {
  const bytes = new TextEncoder().encode(text);
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += every) chunks.push(bytes.slice(i, i + every));
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      const next = chunks.shift();
      if (next) c.enqueue(next);
      else c.close();
    },
  });
  return new Response(body, { status: 200, headers: { "Content-Type": "text/event-stream", ...headers } });
}

export const DISCOVER = {
  supportedVersions: ["2026-07-28"],
  capabilities: { tools: {} },
  serverInfo: { name: "fake", version: "1.0.0" },
};

export const INITIALIZE = {
  protocolVersion: "2025-11-25",
  capabilities: { tools: {} },
  serverInfo: { name: "fake-legacy", version: "1.0.0" },
};
