/**
 * `InputContext`: what a handler uses to ask the client (the same in both eras), and the shapes the
 * input-round engine (`InputRounds`) and its eras' input contexts share: one request as the engine
 * sees it, and the `input_required` outcome of a modern round.
 * @module
 */
import type { Capabilities, Era } from "../../wire/protocol_versions.ts";
import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitResult,
  InputRequests,
  ListRootsResult,
} from "../../wire/protocol/v2026_07_28.ts";
import type { ElicitParams } from "./elicit_params.ts";

/** Options of one ask. */
export interface InputCallOptions {
  /**
   * The key of this input request in `inputRequests` (modern era). Default `<kind>-<n>`. At most 256 characters.
   * @default <kind>-<n>
   */
  key?: string;
}

/** What a handler uses to ask the client; the same in both eras. */
export interface InputContext {
  /** Asks the user (form or URL mode). Needs the client's `elicitation` capability (`elicitation.url` for URL mode), else -32021. */
  elicit(params: ElicitParams, options?: InputCallOptions): Promise<ElicitResult>;
  /** Asks the client's LLM. Needs `sampling` (`sampling.tools` with tools, `sampling.context` with includeContext), else -32021. */
  sample(params: CreateMessageRequestParams, options?: InputCallOptions): Promise<CreateMessageResult>;
  /** Asks for the client's roots. Needs `roots`, else -32021. */
  listRoots(options?: InputCallOptions): Promise<ListRootsResult>;
  /** True when this request's client declared elicitation in `mode` (default form). */
  canElicit(mode?: "form" | "url"): boolean;
  /** True when this request's client declared sampling. */
  canSample(): boolean;
  /** True when this request's client declared roots. */
  canListRoots(): boolean;
  /** 0 on the first call; n on the n-th retry (modern). Always 0 in the legacy era. */
  readonly round: number;
  /**
   * JSON data kept across rounds (modern: carried in the signed, not encrypted, `requestState`; keep
   * secrets out). Starts `undefined`; set it before asking. Legacy: lives for the one call.
   */
  state: unknown;
  /** Runs `compute` on the first round only and replays its (JSON) value on later rounds. */
  once<T>(name: string, compute: () => T | Promise<T>): Promise<T>;
  /** Aborted when this round ends with `input_required` (the handler's remaining work is abandoned). */
  readonly roundSignal: AbortSignal;
}

/** Sends one server-to-client request on a legacy connection and resolves with the client's result. */
export type SendClientRequest = (
  method: string,
  params: unknown,
  options: { signal: AbortSignal },
) => Promise<unknown>;

/** One incoming request, as the engine needs it. */
export interface InputRoundRequest {
  /** The request's era. */
  era: Era;
  /** The request's method (`tools/call`, `prompts/get`, `resources/read`; others may not ask). */
  method: string;
  /** The request's params (modern: with `inputResponses` and `requestState` on a retry). */
  params: unknown;
  /** The capabilities the client declared (modern: in this request's `_meta`; legacy: in `initialize`). */
  clientCapabilities: Capabilities;
  /** The authenticated principal, when there is one: state opens only for the same one. */
  principal?: string;
  /** The request's signal (cancellation, close). */
  signal?: AbortSignal;
  /** Legacy: how to send a request to the client. Absent on a connection that cannot (stateless). */
  sendRequest?: SendClientRequest;
}

/** The result a modern round ends with when it needs input. */
export interface InputRequiredOutcome {
  resultType: "input_required";
  inputRequests: InputRequests;
  requestState: string;
}
