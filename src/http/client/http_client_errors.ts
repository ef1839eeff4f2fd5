/**
 * The errors of the HTTP client transport, fitted to the error model of `src/wire/errors.ts`: each
 * extends a wire class and keeps its stable `code`, adding the HTTP facts as fields.
 * @module
 */
import { ProtocolError, ReadFailedError } from "../../wire/errors.ts";
import type { RequestId } from "../../wire/json_rpc_message.ts";

/**
 * The server answered with an HTTP status and a body that is not a JSON-RPC error (a proxy's 502, a
 * 401 without a body, …). `code` is `protocol`; `instanceof ProtocolError` holds.
 */
export class HttpStatusError extends ProtocolError {
  /** The HTTP status. */
  readonly status: number;
  /** The start of the body (at most 200 characters), when there was one. */
  readonly body: string;
  /** `what` names the request the server answered (a method, or `DELETE (ending the session)`). */
  constructor(what: string, answer: { status: number; body?: string }) {
    const body = (answer.body ?? "").slice(0, 200);
    super(
      `The server answered ${what} with HTTP ${answer.status}${
        body ? `: ${body}` : " and no JSON-RPC error"
      }`,
    );
    this.status = answer.status;
    this.body = body;
  }
}

/**
 * A request's response stream ended or failed before its reply arrived; the request is lost (the
 * server may or may not have done the work). `code` is `read_failed`; `instanceof ReadFailedError`
 * holds. Re-issue it (a new id) only if it is safe to repeat: pass `{ idempotent: true }` to have the
 * transport do that once.
 */
export class StreamBrokenError extends ReadFailedError {
  /** The method of the lost request. */
  readonly method: string;
  /** The id it was sent with. */
  readonly requestId: RequestId;
  constructor(method: string, requestId: RequestId, options?: { cause?: unknown }) {
    super(options);
    const why = options?.cause instanceof Error ? `: ${options.cause.message}` : "";
    this.message = `The response stream of ${method} (id ${
      JSON.stringify(requestId)
    }) ended before its reply${why}`;
    this.method = method;
    this.requestId = requestId;
  }
}

/**
 * A request's response stream broke before its reply and could not be resumed with `GET` +
 * `Last-Event-ID`: the server refused the resume (its events are gone, or it keeps none), or
 * `maxAttempts` reconnections in a row brought nothing. `code` is `read_failed`;
 * `instanceof StreamBrokenError` holds.
 */
export class StreamNotResumedError extends StreamBrokenError {
  /** Resume attempts made. */
  readonly attempts: number;
  /** The last event id the client saw (what it resumed from). */
  readonly lastEventId: string;
  constructor(
    method: string,
    requestId: RequestId,
    details: { attempts: number; lastEventId: string; cause?: unknown },
  ) {
    super(method, requestId, { cause: details.cause });
    const why = details.cause instanceof Error ? `: ${details.cause.message}` : "";
    this.message =
      `The response stream of ${method} (id ${JSON.stringify(requestId)}) broke before its reply ` +
      `and could not be resumed from event ${
        JSON.stringify(details.lastEventId)
      } after ${details.attempts} ` +
      `attempt(s)${why}`;
    this.attempts = details.attempts;
    this.lastEventId = details.lastEventId;
  }
}
