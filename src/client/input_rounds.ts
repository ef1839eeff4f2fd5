/**
 * `runInputRounds`: the one loop that fulfils modern `input_required` results, shared by
 * `ContextClient.request` (through `ClientInputs.request`) and the feature API (`callTool`,
 * `readResource`, `getPrompt`): bounded rounds, answers in parallel, `requestState` echoed exactly.
 * @module
 */
import { ProtocolError } from "../wire/errors.ts";
import { isPlainObject } from "../wire/meta_envelope.ts";
import type { InputRequiredResult } from "../wire/protocol/v2026_07_28.ts";
import type { TimeProvider } from "../stream/time_provider.ts";
import { delay } from "../stream/time_kit.ts";

/** Why a round could not go on: the caller's `fail` turns it into its own error type. */
export interface InputRoundFailure {
  /**
   * `rounds`: `maxRounds` retries were not enough; `unanswered`: an input request has no handler;
   * `malformed`: the result is not a valid `input_required` result.
   */
  readonly reason: "rounds" | "unanswered" | "malformed";
  /** What went wrong, as a sentence naming the method (and the key, for one input request). */
  readonly message: string;
  /** The server's `input_required` result. */
  readonly result: InputRequiredResult;
  /** For `unanswered`: the `inputRequests` key and the method nothing answers. */
  readonly request?: { readonly key: string; readonly method: string };
}

/** Answers one `inputRequests` entry; `undefined` when nothing here answers `method`. */
export type InputAnswerer = (
  method: string,
  params: unknown,
  context: { key: string; signal: AbortSignal },
) => Promise<unknown> | undefined;

/** Options of {@linkcode runInputRounds}. */
export interface InputRoundLoopOptions {
  /** Retries `input_required` may cause before the request fails. */
  readonly maxRounds: number;
  /** Answers the input requests. */
  readonly answer: InputAnswerer;
  /** The pause before retrying a result that asks for nothing (only `requestState`), in milliseconds. */
  readonly stateOnlyRetryDelay: number;
  /** The clock of `stateOnlyRetryDelay`. */
  readonly time: TimeProvider;
  /** Aborts the rounds (and the handlers answering them). */
  readonly signal?: AbortSignal;
  /**
   * The error thrown for a failure. Default: a `ProtocolError` with the failure's message.
   * @default a `ProtocolError` with the failure's message
   */
  readonly fail?: (failure: InputRoundFailure) => Error;
}

/** Sends one request (a new JSON-RPC id each call) and resolves with its result. */
export type SendRequest = (
  method: string,
  params: Record<string, unknown>,
  options: { signal?: AbortSignal },
) => Promise<unknown>;

/** True when `result` is a modern `input_required` result. */
export function isInputRequiredResult(
  result: unknown,
): result is InputRequiredResult & { resultType: "input_required" } {
  return isPlainObject(result) && result.resultType === "input_required";
}

/**
 * The params of the retry of `params` after `result`: the same params, `inputResponses` when the
 * server asked for input, and `requestState` exactly as received (omitted when the server sent none).
 */
export function retryParams(
  params: Record<string, unknown>,
  result: InputRequiredResult,
  responses: Record<string, unknown>,
): Record<string, unknown> {
  const { inputResponses: _r, requestState: _s, ...rest } = params;
  const next: Record<string, unknown> = { ...rest };
  if (result.inputRequests !== undefined) next.inputResponses = responses;
  if (result.requestState !== undefined) next.requestState = result.requestState;
  return next;
}

const defaultFail = (failure: InputRoundFailure): Error => new ProtocolError(failure.message);

/** Builds the error of a failure of one round. */
type RoundFailure = (
  reason: InputRoundFailure["reason"],
  message: string,
  request?: InputRoundFailure["request"],
) => Error;

/**
 * Sends `method` with `params` and, while the result is `input_required`, answers its input requests
 * (in parallel) and retries: a new request each time, the original params plus `inputResponses` and
 * the `requestState` echoed exactly (omitted when absent), at most `maxRounds` retries. A result with
 * only `requestState` is retried after `stateOnlyRetryDelay`. Any other result is returned as is.
 */
export function runInputRounds(
  send: SendRequest,
  method: string,
  params: Record<string, unknown>,
  options: InputRoundLoopOptions,
): Promise<unknown> {
  // The first round without an async function around it: most results are complete, and this runs
  // once per request (one promise, not an async function's and its await's).
  let first: Promise<unknown>;
  try {
    first = send(method, params, { signal: options.signal });
  } catch (error) {
    return Promise.reject(error);
  }
  return Promise.resolve(first).then((
    result,
  ) => (isInputRequiredResult(result) ? moreInputRounds(send, method, params, options, result) : result));
}

/** The rounds after a first result that was `input_required`. */
async function moreInputRounds(
  send: SendRequest,
  method: string,
  params: Record<string, unknown>,
  options: InputRoundLoopOptions,
  first: unknown,
): Promise<unknown> {
  const fail = options.fail ?? defaultFail;
  const name = JSON.stringify(method);
  let current = params;
  for (let round = 0;; round++) {
    const result = round === 0 ? first : await send(method, current, { signal: options.signal });
    if (!isInputRequiredResult(result)) return result;
    const failure: RoundFailure = (reason, message, request) =>
      fail({ reason, message, result, ...(request ? { request } : {}) });
    if (result.inputRequests === undefined && result.requestState === undefined) {
      throw failure(
        "malformed",
        `The server answered ${name} with input_required carrying neither inputRequests nor requestState`,
      );
    }
    if (result.requestState !== undefined && typeof result.requestState !== "string") {
      throw failure("malformed", `The server answered ${name} with a requestState that is not a string`);
    }
    if (result.inputRequests !== undefined && !isPlainObject(result.inputRequests)) {
      throw failure(
        "malformed",
        `The server answered ${name} with input_required whose inputRequests is not an object`,
      );
    }
    if (round >= options.maxRounds) {
      throw failure(
        "rounds",
        `The server still required input after ${options.maxRounds} retries of ${name} (maxInputRounds)`,
      );
    }
    let responses: Record<string, unknown> = {};
    if (result.inputRequests !== undefined) {
      responses = await answerInputRequests(result.inputRequests, options, failure);
    } else if (options.stateOnlyRetryDelay > 0) {
      await delay(options.time, options.stateOnlyRetryDelay, options.signal);
    }
    options.signal?.throwIfAborted();
    current = retryParams(params, result, responses);
  }
}

/**
 * The `inputResponses` of one round: every entry of `requests` answered by `options.answer`, in
 * parallel. An entry that is not a `{method, params}` object, or that nothing answers, throws
 * `failure(reason, message)`.
 */
export async function answerInputRequests(
  requests: Record<string, unknown>,
  options: { readonly answer: InputAnswerer; readonly signal?: AbortSignal },
  failure: RoundFailure,
): Promise<Record<string, unknown>> {
  const signal = options.signal ?? new AbortController().signal;
  const entries = Object.entries(requests).map(async ([key, request]) => {
    const at = `inputRequests[${JSON.stringify(key)}]`;
    if (!isPlainObject(request) || typeof request.method !== "string") {
      throw failure("malformed", `The server's ${at} is not a {method, params} object`);
    }
    const answer = options.answer(request.method, request.params, { key, signal });
    if (answer === undefined) {
      throw failure(
        "unanswered",
        `The server asked for ${request.method} (${at}), which this client has no handler for`,
        { key, method: request.method },
      );
    }
    return [key, await answer] as const;
  });
  return Object.fromEntries(await Promise.all(entries));
}
