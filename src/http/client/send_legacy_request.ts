/**
 * `sendLegacyRequest`: one request of a legacy Streamable HTTP session POSTed, and its response read
 * (JSON, or an SSE stream whose messages go to the session's router) until its reply came; a stream
 * that ends or breaks before it is resumed through `GET` with `Last-Event-ID`, waiting the server's
 * `retry` and backing off, at most `reconnect.maxAttempts` fruitless tries in a row.
 * @module
 */
import { ProtocolError, TransportError } from "../../wire/errors.ts";
import type { RequestId } from "../../wire/json_rpc_message.ts";
import { delay } from "../../stream/time_kit.ts";
import type { TimeProvider } from "../../stream/time_provider.ts";
import { McpHeaders } from "../mcp_request_headers.ts";
import {
  ACCEPT_BOTH,
  errorOfStatus,
  type HttpEndpoint,
  type HttpReply,
  type SseCursor,
} from "./http_endpoint.ts";
import { StreamBrokenError, StreamNotResumedError } from "./http_client_errors.ts";
import { backoffDelay, type ReconnectOptions } from "./legacy_get_stream.ts";
import type { Pending } from "./legacy_message_router.ts";

/** The server forgot the session (404): the session re-initializes and the request is sent again. */
export class SessionExpired extends Error {}

/** What {@linkcode sendLegacyRequest} works with. */
export interface LegacyRequestParts {
  endpoint: HttpEndpoint;
  time: TimeProvider;
  reconnect: Required<ReconnectOptions>;
  /** `Mcp-Session-Id` (when the server minted one) and `MCP-Protocol-Version`, as they are now. */
  sessionHeaders(): Record<string, string>;
  /** True while the session has an id (a 404 then means the server forgot it). */
  hasSession(): boolean;
  /** Routes one message read from the response (see `LegacyMessageRouter.dispatch`). */
  dispatch(value: unknown, owner: Pending, ownerId: RequestId, progress: () => void): void;
}

/**
 * POSTs request `id` (`message`) and reads its response until `entry` is settled. Throws
 * `SessionExpired` for a 404 on a session, `StreamBrokenError`/`StreamNotResumedError` when the
 * reply cannot be had, `signal`'s reason once it aborts.
 */
export async function sendLegacyRequest(
  parts: LegacyRequestParts,
  id: RequestId,
  message: Record<string, unknown>,
  entry: Pending,
  signal: AbortSignal,
  progress: () => void,
  onResponse?: (response: HttpReply) => void,
): Promise<void> {
  const headers = { "Content-Type": "application/json", Accept: ACCEPT_BOTH, ...parts.sessionHeaders() };
  const hadSession = parts.hasSession();
  let response: HttpReply;
  try {
    response = await parts.endpoint.send("POST", { headers, body: JSON.stringify(message), signal });
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw new StreamBrokenError(entry.method, id, { cause: error });
  }
  if (response.status === 404 && hadSession) {
    await response.body?.cancel();
    throw new SessionExpired();
  }
  if (!response.ok) throw await errorOfStatus(response, entry.method);
  if (response.status === 202) {
    throw new ProtocolError(`The server answered request ${entry.method} with 202 Accepted and no reply`);
  }
  onResponse?.(response);
  // Where the stream got to, kept event by event: a stream that breaks mid-way resumes from there.
  const cursor: SseCursor = { lastEventId: "" };
  let failure: unknown;
  try {
    await readStream(parts, response, entry, id, signal, progress, cursor);
  } catch (error) {
    if (!(error instanceof StreamBrokenError)) throw error;
    failure = error;
  }
  let attempts = 0;
  let fruitless = 0;
  while (!entry.settled) {
    // The stream ended or broke before the reply: resume it through GET when it carried event ids.
    if (cursor.lastEventId === "") throw failure ?? new StreamBrokenError(entry.method, id);
    if (fruitless >= parts.reconnect.maxAttempts) {
      throw new StreamNotResumedError(entry.method, id, {
        attempts,
        lastEventId: cursor.lastEventId,
        cause: failure,
      });
    }
    attempts++;
    fruitless++;
    // The server's retry is the least wait (2025-11-25: MUST respect it); failures in a row back off.
    const wait = fruitless === 1
      ? cursor.retry ?? backoffDelay(parts.reconnect, 1)
      : Math.max(cursor.retry ?? 0, backoffDelay(parts.reconnect, fruitless));
    await delay(parts.time, wait, signal);
    const from = cursor.lastEventId;
    let resumed: HttpReply;
    try {
      resumed = await parts.endpoint.send("GET", {
        headers: { Accept: "text/event-stream", ...parts.sessionHeaders(), [McpHeaders.lastEventId]: from },
        signal,
      });
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      failure = error; // the server is unreachable for now: try again
      continue;
    }
    if (!resumed.ok) {
      const refusal = await errorOfStatus(resumed, "GET (resuming the response stream)");
      // 400/404/405: the server cannot resume this stream (events gone, no session, no store); 5xx and 429: try again.
      if (resumed.status < 500 && resumed.status !== 429) {
        throw new StreamNotResumedError(entry.method, id, { attempts, lastEventId: from, cause: refusal });
      }
      failure = refusal;
      continue;
    }
    try {
      await readStream(parts, resumed, entry, id, signal, progress, cursor);
    } catch (error) {
      if (!(error instanceof StreamBrokenError)) throw error;
      failure = error;
    }
    if (cursor.lastEventId !== from || entry.settled) fruitless = 0;
  }
}

/** Reads `response` into the router until `entry` is settled; a broken read is `StreamBrokenError`. */
async function readStream(
  parts: LegacyRequestParts,
  response: HttpReply,
  entry: Pending,
  id: RequestId,
  signal: AbortSignal,
  progress: () => void,
  cursor?: SseCursor,
) {
  try {
    return await parts.endpoint.read(
      response,
      (value) => {
        parts.dispatch(value, entry, id, progress);
        return entry.settled;
      },
      signal,
      cursor,
    );
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (error instanceof TransportError && error.code !== "read_failed") throw error;
    throw new StreamBrokenError(entry.method, id, { cause: error });
  }
}
