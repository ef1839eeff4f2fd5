/**
 * Test doubles for the HTTP handler: a small dispatcher shaped like the server seam, and helpers to
 * build modern and legacy POSTs and read JSON or SSE answers.
 */
import type {
  DispatchContext,
  HttpDispatcher,
  JsonRpcReply,
} from "../../../../src/http/server/http_dispatcher.ts";
import { ErrorCodes, JsonRpcError } from "../../../../src/wire/errors.ts";
import { classifyMessage, errorResponseFor } from "../../../../src/wire/json_rpc_message.ts";
import { readRequestEnvelope } from "../../../../src/wire/meta_envelope.ts";
import { MetaKeys } from "../../../../src/wire/protocol_versions.ts";
import { ServerVersions } from "../../../../src/wire/server_versions.ts";

export const URL_ = "http://127.0.0.1:3000/mcp";
export const MODERN = "2026-07-28";

/** What a fake handler sees. */
export interface FakeCall {
  params: Record<string, unknown>;
  context: DispatchContext;
  era: "modern" | "legacy";
  protocolVersion: string | undefined;
}

export type FakeHandler = (call: FakeCall) => unknown;

/** A dispatcher shaped like `ContextServer.dispatch`: initialize, handlers by method, -32601 otherwise. */
export class FakeServer implements HttpDispatcher {
  readonly versions: ServerVersions;
  readonly handlers = new Map<string, FakeHandler>();
  readonly notifications: { method: string; params: unknown; context: DispatchContext }[] = [];
  readonly calls: FakeCall[] = [];

  constructor(supportedVersions?: readonly string[]) {
    this.versions = new ServerVersions(supportedVersions);
  }

  on(method: string, handler: FakeHandler): this {
    this.handlers.set(method, handler);
    return this;
  }

  async dispatch(message: unknown, context: DispatchContext): Promise<JsonRpcReply | undefined> {
    const classified = classifyMessage(message);
    if (classified.kind === "notification") {
      this.notifications.push({ method: classified.method, params: classified.params, context });
      return undefined;
    }
    if (classified.kind !== "request") throw new Error(`FakeServer got a ${classified.kind}`);
    const { id, method } = classified.request;
    const params = (classified.request.params ?? {}) as Record<string, unknown>;
    try {
      if (method === "initialize") {
        if (context.session?.legacy) throw new JsonRpcError(ErrorCodes.InvalidRequest, "Already initialized");
        if (params.protocolVersion === "fail") {
          throw new JsonRpcError(ErrorCodes.InvalidParams, "Initialize refused");
        }
        const protocolVersion = this.versions.legacy.includes(params.protocolVersion as string)
          ? (params.protocolVersion as string)
          : this.versions.legacy[0]!;
        if (context.session) {
          context.session.legacy = { protocolVersion, clientInfo: undefined, clientCapabilities: {} };
        }
        return {
          jsonrpc: "2.0",
          id,
          result: { protocolVersion, capabilities: {}, serverInfo: { name: "fake", version: "1" } },
        };
      }
      const reading = readRequestEnvelope(params);
      const era = reading.kind === "envelope" ? "modern" : "legacy";
      const protocolVersion = reading.kind === "envelope"
        ? reading.envelope.protocolVersion
        : context.session?.legacy?.protocolVersion;
      const handler = this.handlers.get(method);
      if (!handler) throw new JsonRpcError(ErrorCodes.MethodNotFound, `Method not found: ${method}`);
      const call: FakeCall = { params, context, era, protocolVersion };
      this.calls.push(call);
      const result = await handler(call);
      return { jsonrpc: "2.0", id, result: result ?? {} };
    } catch (error) {
      return errorResponseFor(id, error);
    }
  }
}

export function meta(extra: Record<string, unknown> = {}, version = MODERN): Record<string, unknown> {
  return {
    [MetaKeys.protocolVersion]: version,
    [MetaKeys.clientCapabilities]: {},
    [MetaKeys.clientInfo]: { name: "test", version: "1" },
    ...extra,
  };
}

/** A modern request with a full envelope and matching headers. */
export function modernRequest(
  id: number | string | undefined,
  method: string,
  params: Record<string, unknown> = {},
  options: {
    headers?: Record<string, string | null>;
    metaExtra?: Record<string, unknown>;
    signal?: AbortSignal;
    version?: string;
  } = {},
): Request {
  const body: Record<string, unknown> = {
    jsonrpc: "2.0",
    method,
    params: { ...params, _meta: meta(options.metaExtra, options.version) },
  };
  if (id !== undefined) body.id = id;
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "MCP-Protocol-Version": options.version ?? MODERN,
    "Mcp-Method": method,
  };
  if (typeof params.name === "string" && (method === "tools/call" || method === "prompts/get")) {
    headers["Mcp-Name"] = params.name;
  }
  if (typeof params.uri === "string" && method === "resources/read") headers["Mcp-Name"] = params.uri;
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (value === null) delete headers[name];
    else headers[name] = value;
  }
  return new Request(URL_, { method: "POST", body: JSON.stringify(body), headers, signal: options.signal });
}

/** A POST of `body` (any JSON value, or raw text) with legacy-style headers. */
export function legacyPost(
  body: unknown,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Request {
  return new Request(URL_, {
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...headers,
    },
    signal,
  });
}

export function rpc(
  id: number | string | undefined,
  method: string,
  params?: unknown,
): Record<string, unknown> {
  const message: Record<string, unknown> = { jsonrpc: "2.0", method };
  if (id !== undefined) message.id = id;
  if (params !== undefined) message.params = params;
  return message;
}

/** Reads SSE events (their parsed `data`) and comments from a response body, `count` events or to the end. */
export class SseReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = "";
  comments = 0;
  ended = false;

  constructor(response: Response) {
    this.#reader = response.body!.getReader();
  }

  /** The next event's parsed data, or `undefined` at the end of the stream. */
  async next(): Promise<Record<string, unknown> | undefined> {
    for (;;) {
      const at = this.#buffer.indexOf("\n\n");
      if (at >= 0) {
        const block = this.#buffer.slice(0, at);
        this.#buffer = this.#buffer.slice(at + 2);
        const lines = block.split("\n");
        const data = lines.filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart());
        if (data.length === 0) {
          if (lines.some((l) => l.startsWith(":"))) this.comments++;
          continue;
        }
        return JSON.parse(data.join("\n")) as Record<string, unknown>;
      }
      const { done, value } = await this.#reader.read();
      if (done) {
        this.ended = true;
        return undefined;
      }
      this.#buffer += this.#decoder.decode(value, { stream: true });
    }
  }

  /** Every remaining event. */
  async rest(): Promise<Record<string, unknown>[]> {
    const events: Record<string, unknown>[] = [];
    for (let event = await this.next(); event !== undefined; event = await this.next()) events.push(event);
    return events;
  }

  /** Reads one chunk (keep-alive comments arrive as their own chunk); true when it was a comment. */
  async readChunk(): Promise<string | undefined> {
    const { done, value } = await this.#reader.read();
    return done ? undefined : this.#decoder.decode(value);
  }

  cancel(): Promise<void> {
    return this.#reader.cancel();
  }
}

export async function json(response: Response): Promise<Record<string, unknown>> {
  return (await response.json()) as Record<string, unknown>;
}

/** A promise and its resolver. */
export function gate<T = void>(): { promise: Promise<T>; open(value: T): void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

/** Resolves when `signal` aborts. */
export function aborted(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(signal.reason);
    else signal.addEventListener("abort", () => resolve(signal.reason), { once: true });
  });
}
