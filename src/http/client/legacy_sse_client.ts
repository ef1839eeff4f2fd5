/**
 * The deprecated HTTP+SSE transport (2024-11-05) from the client side: `GET` the SSE URL, take the
 * first `endpoint` event (the URL to POST to, same origin only), then read every `message` event as
 * one JSON-RPC message and POST every message the client sends to that endpoint. Only the legacy
 * era exists there: the session is `initialize`d over it as over a stream. Bounded: each event at
 * most `maxEventBytes`, each sent message at most that many bytes, and the wait for the `endpoint`
 * event by the connect deadline.
 * @module
 */
import { asError, NegotiationFailedError, ProtocolError, TimeoutError } from "../../wire/errors.ts";
import { LATEST_LEGACY_VERSION } from "../../wire/protocol_versions.ts";
import { timeoutSignal } from "../../stream/time_kit.ts";
import { StreamClientExchange } from "../../client/stream_client_exchange.ts";
import type { ExchangeConnectSettings, ExchangeSession } from "../../client/exchange_transport.ts";
import { parseInitializeResult } from "../../client/probe_classifier.ts";
import { NegotiationRecord } from "../../client/negotiation_record.ts";
import type { Duplex } from "../../stream/duplex.ts";
import { HttpEndpoint, type HttpEndpointOptions, type HttpReply } from "./http_endpoint.ts";
import { HttpStatusError } from "./http_client_errors.ts";
import { DEFAULT_MAX_EVENT_BYTES, SseDecoderStream, type SseEvent } from "./sse_decoder_stream.ts";

/** An open legacy SSE connection: the message streams, and where the client POSTs. */
export interface LegacySseConnection extends Duplex {
  /** The URL the server's `endpoint` event named. */
  readonly postUrl: string;
}

/**
 * Opens the SSE stream at `url` and resolves once its `endpoint` event arrived. Rejects with
 * {@linkcode HttpStatusError} when the GET is refused or is not an event stream, and with
 * `ProtocolError` for an endpoint of another origin or a stream that ends first.
 */
export async function openLegacySse(
  url: URL,
  options: HttpEndpointOptions,
  signal: AbortSignal,
): Promise<LegacySseConnection> {
  const maxBytes = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
  const life = new AbortController();
  const onAbort = (): void => life.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  let response: HttpReply;
  try {
    response = await new HttpEndpoint(url, options).send("GET", {
      headers: { Accept: "text/event-stream" },
      signal: life.signal,
    });
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
  const type = (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (!response.ok || type !== "text/event-stream" || !response.body) {
    await response.body?.cancel().catch(() => {});
    throw new HttpStatusError("GET (the legacy HTTP+SSE stream)", { status: response.status });
  }
  const events = response.body.pipeThrough(new SseDecoderStream({ maxEventBytes: maxBytes })).getReader();
  const stop = (): void => {
    life.abort();
    void events.cancel().catch(() => {});
  };
  signal.addEventListener("abort", stop, { once: true });
  let postUrl: URL;
  try {
    for (;;) {
      const { done, value } = await events.read();
      if (done) {
        throw new ProtocolError(`The legacy SSE stream at ${url.href} ended before its endpoint event`);
      }
      if (value.type !== "endpoint") continue;
      postUrl = new URL(value.data.trim(), url);
      if (postUrl.origin !== url.origin) {
        throw new ProtocolError(
          `The legacy SSE endpoint event names another origin (${postUrl.origin}, not ${url.origin}): refused`,
        );
      }
      break;
    }
  } catch (error) {
    stop();
    throw signal.aborted ? signal.reason : error;
  } finally {
    signal.removeEventListener("abort", stop);
  }
  const poster = new HttpEndpoint(postUrl, options);
  const encoder = new TextEncoder();
  const readable = new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        let read: { done: boolean; value?: SseEvent };
        try {
          read = await events.read();
        } catch (error) {
          controller.error(error);
          return;
        }
        if (read.done) {
          controller.close();
          return;
        }
        if (read.value?.type === "message" && read.value.data !== "") {
          controller.enqueue(encoder.encode(`${read.value.data.replace(/\n/g, "")}\n`));
          return;
        }
      }
    },
    cancel() {
      stop();
    },
  });
  const decoder = new TextDecoder();
  let pending = "";
  const post = async (line: string): Promise<void> => {
    const answer = await poster.send("POST", {
      headers: { "Content-Type": "application/json" },
      body: line,
      signal: life.signal,
    });
    await answer.body?.cancel().catch(() => {});
    if (!answer.ok) {
      throw new HttpStatusError("POST (a message to the legacy SSE endpoint)", { status: answer.status });
    }
  };
  const writable = new WritableStream<Uint8Array>({
    async write(chunk) {
      pending += decoder.decode(chunk, { stream: true });
      let newline: number;
      while ((newline = pending.indexOf("\n")) !== -1) {
        const line = pending.slice(0, newline).trim();
        pending = pending.slice(newline + 1);
        if (line !== "") await post(line);
      }
      if (pending.length > maxBytes) {
        throw new ProtocolError(`A message to the legacy SSE endpoint exceeds ${maxBytes} bytes`);
      }
    },
    close() {
      stop();
    },
    abort() {
      stop();
    },
  });
  return { readable, writable, postUrl: postUrl.href };
}

/**
 * Connects over the legacy HTTP+SSE transport and runs the legacy handshake (`initialize`, then
 * `notifications/initialized`) on it, for `ContextClient.connect`.
 */
export async function connectLegacySse(
  url: URL,
  options: HttpEndpointOptions,
  s: ExchangeConnectSettings,
): Promise<ExchangeSession> {
  const record = new NegotiationRecord(s);
  const deadline = timeoutSignal(s.time, s.connectTimeout, {
    reason: () =>
      new TimeoutError(
        `Connecting to ${url.href} (legacy HTTP+SSE) timed out after ${s.connectTimeout} ms (connectTimeout)`,
        s.connectTimeout,
      ),
  });
  let exchange: StreamClientExchange | undefined;
  try {
    const duplex = await openLegacySse(url, options, deadline.signal);
    exchange = new StreamClientExchange(duplex, {
      connection: { answerInvalidInput: false, timeProvider: s.time, onReport: s.report },
      onRequest: s.onRequest,
      onNotification: s.onNotification,
    });
    exchange.connection.start();
    const result = await exchange.request("initialize", {
      protocolVersion: LATEST_LEGACY_VERSION,
      capabilities: s.capabilities,
      clientInfo: s.clientInfo,
    }, { signal: deadline.signal });
    const parsed = parseInitializeResult(result);
    if (typeof parsed === "string") throw new NegotiationFailedError(parsed);
    await exchange.notify("notifications/initialized");
    return {
      exchange,
      era: "legacy",
      ...parsed,
      info: record.info("requested_legacy", {
        detail: `legacy HTTP+SSE transport (2024-11-05): messages POSTed to ${duplex.postUrl}`,
      }),
      closed: exchange.connection.closed,
    };
  } catch (error) {
    await exchange?.close().catch(() => {});
    if (deadline.signal.aborted) throw deadline.signal.reason;
    if (error instanceof NegotiationFailedError || error instanceof HttpStatusError) throw error;
    throw new NegotiationFailedError(
      `Connecting to ${url.href} over the legacy HTTP+SSE transport failed: ${asError(error).message}`,
      { cause: error },
    );
  } finally {
    deadline.clear();
  }
}
