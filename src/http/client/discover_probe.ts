/**
 * `sendDiscoverProbe`: the `server/discover` probe of the HTTP era negotiation, POSTed with the
 * modern headers, and what its answer means: a result or error classified as the 2026-07-28
 * transport page says; a 400 whose JSON-RPC error code is modern (-32021, -32020) a modern refusal;
 * any other 4xx legacy; anything else an error, never a legacy signal.
 * @module
 */
import { asError, ErrorCodes, type JsonRpcError, NegotiationFailedError } from "../../wire/errors.ts";
import { classifyMessage } from "../../wire/json_rpc_message.ts";
import { withRequestEnvelope } from "../../wire/meta_envelope.ts";
import type { ExchangeConnectSettings } from "../../client/exchange_transport.ts";
import {
  classifyProbeError,
  classifyProbeResult,
  describeRpcError,
  type ProbeVerdict,
} from "../../client/probe_classifier.ts";
import { deriveRequestHeaders, HEADER_MISMATCH } from "../mcp_request_headers.ts";
import { ACCEPT_BOTH, type HttpEndpoint, type HttpReply } from "./http_endpoint.ts";
import { HttpStatusError } from "./http_client_errors.ts";
import { readResponseExcerpt } from "./read_response_text.ts";

/** What a probe answer over HTTP means. */
export type HttpVerdict = ProbeVerdict | { kind: "modern-refusal"; code: number; detail: string };

/** One probe: its id, the version it offers, the connect settings, and whether a -32022 may name another version to reprobe with. */
export interface DiscoverProbe {
  id: string;
  version: string;
  settings: ExchangeConnectSettings;
  mayReprobe: boolean;
}

/** POSTs `server/discover` with the modern headers and classifies the answer. Throws when the answer says nothing about the era. */
export async function sendDiscoverProbe(
  endpoint: HttpEndpoint,
  signal: AbortSignal,
  probe: DiscoverProbe,
): Promise<HttpVerdict> {
  const { id, version, settings: s, mayReprobe } = probe;
  const message = {
    jsonrpc: "2.0",
    id,
    method: "server/discover",
    params: withRequestEnvelope(undefined, {
      protocolVersion: version,
      clientCapabilities: s.capabilities,
      clientInfo: s.clientInfo,
    }),
  };
  const headers = {
    "Content-Type": "application/json",
    Accept: ACCEPT_BOTH,
    ...deriveRequestHeaders(message),
  };
  let response: HttpReply;
  try {
    response = await endpoint.send("POST", {
      headers,
      body: JSON.stringify(message),
      signal: signal,
    });
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw new NegotiationFailedError(
      `The server/discover probe to ${endpoint.url} failed: ${asError(error).message}`,
      { cause: error },
    );
  }
  const status = response.status;
  if (response.ok && status !== 202) {
    let reply: { result: unknown } | { error: JsonRpcError } | undefined;
    await endpoint.read(response, (value) => {
      const m = classifyMessage(value);
      if ((m.kind === "result" || m.kind === "error") && m.id === message.id) {
        reply = m.kind === "result" ? { result: m.result } : { error: m.error };
        return true;
      }
      return false;
    });
    if (reply === undefined) {
      throw new NegotiationFailedError(
        `The server answered the server/discover probe with HTTP ${status} but no reply`,
      );
    }
    return "result" in reply
      ? classifyProbeResult(reply.result)
      : classifyProbeError(reply.error, mayReprobe);
  }
  const { text } = await readResponseExcerpt(response);
  let error: JsonRpcError | undefined;
  try {
    const m = classifyMessage(JSON.parse(text));
    if (m.kind === "error") error = m.error;
  } catch {
    // Not JSON: only the status speaks.
  }
  if (status >= 400 && status < 500) {
    if (error?.code === ErrorCodes.UnsupportedProtocolVersion) return classifyProbeError(error, mayReprobe);
    if (error?.code === ErrorCodes.MissingRequiredClientCapability || error?.code === HEADER_MISMATCH) {
      return {
        kind: "modern-refusal",
        code: error.code,
        detail: `server/discover was answered HTTP ${status} with ${describeRpcError(error)}, a modern error`,
      };
    }
    if (error !== undefined) {
      const verdict = classifyProbeError(error, false) as Extract<ProbeVerdict, { kind: "legacy" }>;
      return { ...verdict, detail: `HTTP ${status}: ${verdict.detail}` };
    }
    return {
      kind: "legacy",
      outcome: "fallback_rpc_error",
      learn: false,
      legacyVersions: [],
      detail: `server/discover was answered HTTP ${status} without a JSON-RPC error${
        text ? `: ${JSON.stringify(text.slice(0, 100))}` : ""
      }`,
    };
  }
  const cause = error ?? new HttpStatusError("server/discover", { status, body: text });
  throw new NegotiationFailedError(
    `The server/discover probe to ${endpoint.url} was answered HTTP ${status}: ${cause.message}`,
    { cause },
  );
}
