/**
 * `InputRounds`: one handler API for asking the client (`elicit`, `sample`, `listRoots`) that works
 * in both eras, independent of the transport.
 *
 * **The handler model: re-entrant handlers.** A handler is ordinary async code that awaits
 * `input.elicit(…)`, `input.sample(…)` or `input.listRoots()`.
 * - **Legacy era**: each call sends the real JSON-RPC request to the client and awaits its reply,
 *   bounded by `clientRequestTimeout` (default 60 s) and by the request's own signal. A connection that
 *   cannot carry server-to-client requests (stateless) fails the call at once, never hangs.
 * - **Modern era**: a call whose answer is in the retry's `inputResponses` (or was carried in the
 *   signed `requestState`) resolves at once. A call without an answer ends the round: it rejects with
 *   an {@linkcode InputRequiredSignal}, the handler is abandoned (its signal aborts), and the request
 *   answers `{resultType: "input_required", inputRequests, requestState}` holding every call made
 *   before the handler settled (so `Promise.all([elicit(a), sample(b)])` asks both in one round). The
 *   retry re-runs the handler from the start; answered calls resolve immediately. A missing answer is
 *   asked again, not failed.
 *
 * Why re-entrant and not "return an input-required value": the same code serves both eras unchanged,
 * reads top to bottom, and needs no state machine; the price is that a handler runs again on each
 * round, so code before an ask must be safe to repeat (use `once` for values that must not change
 * between rounds, such as a generated id).
 *
 * Keys: `options.key` when given (the conformance suite needs `user_name`), else `<kind>-<n>` with
 * `n` the call's position in the run (`elicit-0`, `sample-1`, `roots-2`). They are deterministic while
 * the handler asks in the same order each run; give explicit keys when concurrent branches ask after
 * other awaits.
 * @module
 */
import { isPlainObject } from "../../wire/meta_envelope.ts";
import { numberOption } from "../../stream/options.ts";
import { systemTimeProvider, type TimeProvider } from "../../stream/time_provider.ts";
import type { InputContext, InputRequiredOutcome, InputRoundRequest } from "./input_context.ts";
import { LegacyInput } from "./legacy_input.ts";
import {
  type CarriedState,
  carriedStateOf,
  endRound,
  ModernRound,
  type RoundOutcome,
} from "./modern_round.ts";
import { RequestStateCodec } from "./request_state.ts";
import { RequestStateError } from "./request_state_error.ts";

export { InputRequiredSignal } from "./input_required_signal.ts";
export type {
  InputCallOptions,
  InputContext,
  InputRequiredOutcome,
  InputRoundRequest,
  SendClientRequest,
} from "./input_context.ts";

/** Options of {@linkcode InputRounds}. */
export interface InputRoundsOptions {
  /**
   * Seals and opens `requestState`. Default: a codec with a random per-process key (see {@linkcode RequestStateCodec}).
   * @default a codec with a random per-process key
   */
  codec?: RequestStateCodec;
  /**
   * Legacy: how long a server-to-client request may go unanswered. Default 60 000 ms.
   * @default 60000
   */
  clientRequestTimeout?: number;
  /**
   * The clock of `clientRequestTimeout`. Default: the system clock.
   * @default the system clock
   */
  timeProvider?: TimeProvider;
}

/**
 * Runs handlers that ask the client, in either era.
 *
 * @example
 * ```ts
 * declare const sharedHexKey: string, request: InputRoundRequest;
 * const rounds = new InputRounds({ codec: new RequestStateCodec({ key: sharedHexKey }) });
 * const result = await rounds.run(request, async (input) => {
 *   const ok = await input.elicit({ message: "Delete?", requestedSchema: { type: "object", properties: {} } });
 *   return { content: [{ type: "text", text: ok.action }] };
 * }); // a modern request without the answer resolves with { resultType: "input_required", … }
 * ```
 */
export class InputRounds {
  readonly codec: RequestStateCodec;
  readonly clientRequestTimeout: number;
  readonly #time: TimeProvider;

  constructor(options: InputRoundsOptions = {}) {
    this.#time = options.timeProvider ?? systemTimeProvider;
    this.codec = options.codec ?? new RequestStateCodec({ timeProvider: this.#time });
    this.clientRequestTimeout = numberOption("clientRequestTimeout", options.clientRequestTimeout, 60_000);
  }

  /**
   * Runs `body` for `request`. Modern: resolves with the body's value, or with an
   * {@linkcode InputRequiredOutcome} when the round needs input; rejects with a
   * {@linkcode RequestStateError} (-32602) for bad `requestState` or `inputResponses`. Legacy:
   * resolves with the body's value.
   */
  async run<T>(
    request: InputRoundRequest,
    body: (input: InputContext) => T | Promise<T>,
  ): Promise<T | InputRequiredOutcome> {
    if (request.era === "legacy") {
      return await body(new LegacyInput(request, this.clientRequestTimeout, this.#time));
    }
    return this.#runModern(request, body);
  }

  /**
   * The input context of a request that may not ask (any method but `tools/call`, `prompts/get`
   * and `resources/read`): the `can…` checks answer, and every ask rejects with a clear -32603.
   */
  passive(request: InputRoundRequest): InputContext {
    // No spread: the request's signal may be a lazy getter, read only if something waits on it.
    const cannotSend = Object.create(request, { sendRequest: { value: undefined } }) as InputRoundRequest;
    return new LegacyInput(cannotSend, this.clientRequestTimeout, this.#time);
  }

  async #runModern<T>(
    request: InputRoundRequest,
    body: (input: InputContext) => T | Promise<T>,
  ): Promise<T | InputRequiredOutcome> {
    const params = isPlainObject(request.params) ? request.params : {};
    const binding = { method: request.method, params, principal: request.principal };
    let responses: Record<string, unknown> = {};
    if (params.inputResponses !== undefined) {
      if (!isPlainObject(params.inputResponses)) {
        throw new RequestStateError(
          "invalid_input",
          `Invalid inputResponses: expected an object keyed by the server's input request keys, got ${
            params.inputResponses === null
              ? "null"
              : Array.isArray(params.inputResponses)
              ? "an array"
              : typeof params.inputResponses
          }`,
        );
      }
      responses = params.inputResponses;
    }
    let carried: CarriedState = { r: 0, a: {}, o: {} };
    if (params.requestState !== undefined) {
      carried = carriedStateOf(await this.codec.open(params.requestState, binding));
    }
    const round = new ModernRound(request, carried, responses);
    let outcome: RoundOutcome<T>;
    try {
      outcome = { ok: true, value: await body(round) };
    } catch (error) {
      outcome = { ok: false, error };
    }
    return endRound(this.codec, round, outcome, binding);
  }
}
