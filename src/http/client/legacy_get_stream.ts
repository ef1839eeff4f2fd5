/**
 * `listenForServerMessages`: the legacy era's GET stream, by which a server sends messages that
 * belong to no request. It reconnects when the stream ends (after the server's `retry:`) or fails
 * (with backoff), sending `Last-Event-ID`, until the signal aborts.
 * @module
 */
import { asError, ProtocolError } from "../../wire/errors.ts";
import { delay } from "../../stream/time_kit.ts";
import type { TimeProvider } from "../../stream/time_provider.ts";
import { McpHeaders } from "../mcp_request_headers.ts";
import type { HttpEndpoint } from "./http_endpoint.ts";
import { HttpStatusError } from "./http_client_errors.ts";

/** How the GET stream and resumed response streams reconnect. */
export interface ReconnectOptions {
  /**
   * First wait, in ms, when the server sent no `retry:`. Default 1 000.
   * @default 1000
   */
  initialDelay?: number;
  /**
   * Longest wait, in ms. Default 30 000.
   * @default 30000
   */
  maxDelay?: number;
  /**
   * Each failed attempt multiplies the wait by this. Default 1.5.
   * @default 1.5
   */
  factor?: number;
  /**
   * Failed attempts in a row before giving up (reported through `onReport`). Default 10.
   * @default 10
   */
  maxAttempts?: number;
}

/** The wait before reconnection attempt `attempt` (1-based) after failures: `initialDelay × factor^(attempt-1)`, at most `maxDelay`. */
export function backoffDelay(reconnect: Required<ReconnectOptions>, attempt: number): number {
  return Math.min(reconnect.initialDelay * reconnect.factor ** (attempt - 1), reconnect.maxDelay);
}

/** What {@linkcode listenForServerMessages} needs. */
export interface ServerMessageStreamOptions {
  endpoint: HttpEndpoint;
  time: TimeProvider;
  reconnect: Required<ReconnectOptions>;
  /** The session headers of each GET (`Mcp-Session-Id`, `MCP-Protocol-Version`). */
  headers(): Record<string, string>;
  /** Each message of the stream. */
  onMessage(message: unknown): void;
  report(error: Error): void;
  /** Ends listening (the session closed or re-initialized). */
  signal: AbortSignal;
  /**
   * The stream opened (a 2xx). `reopened`: it had been open before; `resumed`: `Last-Event-ID` was
   * sent (the server can replay what was missed), so a reopening without it may have lost messages.
   */
  onOpened?(info: { reopened: boolean; resumed: boolean }): void;
  /**
   * A 404: the server forgot the session (its replica went away). `opened`: the stream had been open.
   * Returns true when the session re-initializes (listening then stops here), false to give up.
   */
  onSessionLost?(opened: boolean): boolean;
}

/**
 * Keeps the GET stream open until `signal` aborts. Stops for good on 405 (the server offers no GET
 * stream) and on any other 4xx but 408 and 429 (reported once; a 404 goes to `onSessionLost` first,
 * which may re-initialize the session instead); gives up after
 * `reconnect.maxAttempts` failures in a row (reported).
 */
export async function listenForServerMessages(options: ServerMessageStreamOptions): Promise<void> {
  const { endpoint, time, reconnect, signal, report } = options;
  let lastEventId = "";
  let retry: number | undefined;
  let failures = 0;
  let opened = false;
  while (!signal.aborted) {
    try {
      const headers: Record<string, string> = { Accept: "text/event-stream", ...options.headers() };
      if (lastEventId !== "") headers[McpHeaders.lastEventId] = lastEventId;
      const response = await endpoint.send("GET", { headers, signal });
      if (response.status === 405) {
        // The server offers no GET stream: server messages come only on response streams.
        await response.body?.cancel();
        return;
      }
      if (response.status === 404 && options.onSessionLost?.(opened)) {
        // The session was known, and is not any more: the session re-initializes and listens anew.
        await response.body?.cancel();
        return;
      }
      if (
        response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429
      ) {
        // Refused for good (no GET stream here, or a session the next POST will find gone): no retry.
        await response.body?.cancel();
        report(
          new HttpStatusError("GET (the server message stream); not reconnecting", {
            status: response.status,
          }),
        );
        return;
      }
      if (!response.ok) {
        await response.body?.cancel();
        throw new HttpStatusError("GET (the server message stream)", { status: response.status });
      }
      failures = 0;
      options.onOpened?.({ reopened: opened, resumed: lastEventId !== "" });
      opened = true;
      const outcome = await endpoint.read(response, (value) => void options.onMessage(value), signal);
      if (outcome.lastEventId !== "") lastEventId = outcome.lastEventId;
      if (outcome.retry !== undefined) retry = outcome.retry;
    } catch (error) {
      if (signal.aborted) return;
      failures++;
      if (failures >= reconnect.maxAttempts) {
        report(
          new ProtocolError(
            `The GET stream failed ${failures} times in a row; giving up on it: ${asError(error).message}`,
            { cause: error },
          ),
        );
        return;
      }
      report(
        new ProtocolError(
          `The GET stream failed (attempt ${failures}); reconnecting: ${asError(error).message}`,
          { cause: error },
        ),
      );
    }
    try {
      await delay(
        time,
        failures === 0
          ? retry ?? reconnect.initialDelay
          : Math.max(retry ?? 0, backoffDelay(reconnect, failures)),
        signal,
      );
    } catch {
      return; // Aborted: the session closed or re-initialized.
    }
  }
}
