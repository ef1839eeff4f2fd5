/**
 * A failure in words the user can act on: what failed, and why underneath (a refused connection, an
 * unknown host, a TLS problem, an HTTP status and the start of its body), as a text line for stderr
 * and as `{"error":{"code","message","cause"}}` for `--json` on stdout.
 * @module
 */
import { JsonRpcError, ProcessExitedError, TransportError } from "onemodelcontext";
import { UsageError } from "./args.ts";

/** Characters of an error message the CLI prints at most: a server controls it, and may send megabytes. */
export const MAX_ERROR_CHARS = 2_000;

/** Characters of an HTTP error body quoted in a cause at most. */
export const MAX_BODY_EXCERPT_CHARS = 200;

/** A failure as `--json` prints it. */
export interface Failure {
  /** A JSON-RPC error code, a transport error code (`timeout`, `process_exited`, …), `usage` or `failure`. */
  code: string | number;
  message: string;
  /** What failed underneath, when known: `ECONNREFUSED: …`, `ENOTFOUND: …`, `TLS: …`, `HTTP 502: …`. */
  cause?: string;
}

/** `text` cut to `max` characters, saying how long it was. */
export function boundedText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters in all)`;
}

/** The network, TLS or HTTP cause somewhere in `error`'s cause chain, in words. */
export function causeOf(error: unknown): string | undefined {
  const found = namedCause(error);
  if (found !== undefined) return found;
  // Nothing named: the innermost message under a bare "fetch failed" ("bad port", …) still says more.
  let inner: unknown = error;
  for (let depth = 0; depth < 8 && (inner as { cause?: unknown })?.cause instanceof Error; depth++) {
    inner = (inner as { cause: unknown }).cause;
  }
  return inner !== error && inner instanceof Error && inner.message
    ? boundedText(inner.message, MAX_BODY_EXCERPT_CHARS)
    : undefined;
}

function namedCause(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  for (let e = error; e !== undefined && e !== null && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    seen.add(e);
    const fields = e as {
      code?: unknown;
      status?: unknown;
      body?: unknown;
      message?: unknown;
      hostname?: unknown;
    };
    const message = typeof fields.message === "string" ? fields.message : "";
    if (typeof fields.status === "number" && e instanceof Error && e.name !== "Response") {
      const body = typeof fields.body === "string" ? fields.body.trim() : "";
      return `HTTP ${fields.status}${body ? `: ${boundedText(body, MAX_BODY_EXCERPT_CHARS)}` : ""}`;
    }
    if (typeof fields.code === "string") {
      const code = fields.code;
      if (/CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY|HOSTNAME_MISMATCH/.test(code)) {
        return `TLS: ${code}: ${message}`;
      }
      if (/^E[A-Z_]+$/.test(code) || code.startsWith("UND_ERR")) {
        return `${code}: ${CODE_WORDS[code] ?? message}`;
      }
    }
    if (Array.isArray((e as { errors?: unknown }).errors)) {
      // An AggregateError (every address of a host refused): the first one speaks for all.
      const first = namedCause((e as { errors: unknown[] }).errors[0]);
      if (first) return first;
    }
  }
  return undefined;
}

const CODE_WORDS: Record<string, string> = {
  ECONNREFUSED: "nothing listens there (connection refused)",
  ENOTFOUND: "the host name does not resolve",
  EAI_AGAIN: "the host name could not be resolved right now (DNS)",
  ECONNRESET: "the connection was reset by the server",
  ETIMEDOUT: "the connection timed out",
  EHOSTUNREACH: "the host is unreachable",
  ENETUNREACH: "the network is unreachable",
  UND_ERR_CONNECT_TIMEOUT: "the connection timed out",
  UND_ERR_SOCKET: "the connection failed",
};

/** `error` as a {@linkcode Failure}. */
export function failureOf(error: unknown): Failure {
  const cause = causeOf(error);
  const raw = describeRaw(error);
  const message = boundedText(cause && !raw.includes(cause) ? `${raw} (${cause})` : raw, MAX_ERROR_CHARS);
  const code = error instanceof JsonRpcError
    ? error.code
    : error instanceof TransportError
    ? error.code
    : error instanceof UsageError
    ? "usage"
    : typeof (error as { code?: unknown })?.code === "string"
    ? (error as { code: string }).code
    : "failure";
  return cause === undefined ? { code, message } : { code, message, cause };
}

function describeRaw(error: unknown): string {
  if (error instanceof JsonRpcError) return `${error.message} (JSON-RPC ${error.code})`;
  if (error instanceof ProcessExitedError) return error.message;
  if (error instanceof TransportError) return `${error.message} [${error.code}]`;
  return error instanceof Error ? error.message : String(error);
}
