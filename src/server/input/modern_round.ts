/**
 * `ModernRound`: one round of a 2026-07-28 request that may ask the client. Answers come from the
 * retry's `inputResponses` or the state carried in `requestState`; asks without one are collected
 * and end the round with `input_required`.
 * @module
 */
import { isPlainObject } from "../../wire/meta_envelope.ts";
import type { InputRequests } from "../../wire/protocol/v2026_07_28.ts";
import { type InputMethod, invalidAnswer } from "./input_capabilities.ts";
import { BaseInput, handled } from "./base_input.ts";
import { InputRequiredSignal } from "./input_required_signal.ts";
import type { InputContext, InputRequiredOutcome, InputRoundRequest } from "./input_context.ts";
import type { RequestStateBinding, RequestStateCodec } from "./request_state.ts";
import { RequestStateError } from "./request_state_error.ts";

/** What a modern round carries from one round to the next inside `requestState`. */
export interface CarriedState {
  /** The round number of the run that reads it. */
  r: number;
  /** Answers used so far, by key: the method they answered and the value. */
  a: Record<string, { m: InputMethod; v: unknown }>;
  /** `InputContext.state`. */
  s?: unknown;
  /** `InputContext.once` values by name. */
  o: Record<string, unknown>;
}

export type RoundOutcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** The end of a modern round: its outcome, or `input_required` with the sealed state when it asked. */
export function endRound<T>(
  codec: RequestStateCodec,
  round: ModernRound,
  outcome: RoundOutcome<T>,
  binding: RequestStateBinding,
): T | InputRequiredOutcome | Promise<InputRequiredOutcome> {
  const pending = round.end();
  if (round.fatal) throw round.fatal;
  if (pending !== undefined) {
    return codec.seal(round.carryForward(), binding).then((requestState) => ({
      resultType: "input_required" as const,
      inputRequests: pending,
      requestState,
    }));
  }
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}

/**
 * What {@linkcode runModernRound} uses of its `InputRounds` (which fits): declared here so this module
 * need not import the engine that builds its rounds.
 */
export interface RoundRunner {
  /** Seals the state of a round that needs input. */
  readonly codec: RequestStateCodec;
  /** Runs `body` for `request` the general way (a retry, or a legacy request). */
  run<T>(
    request: InputRoundRequest,
    body: (input: InputContext) => T | Promise<T>,
  ): Promise<T | InputRequiredOutcome>;
}

/**
 * `rounds.run(request, body)` for a modern request, without a promise when nothing needs one: a first
 * round (no `requestState`, no `inputResponses`) whose body returns a value, not a promise, and asks
 * nothing. Otherwise the same outcome, as a promise. Internal: the stream's hot path (see dispatch).
 */
export function runModernRound<T>(
  rounds: RoundRunner,
  request: InputRoundRequest,
  body: (input: InputContext) => T | Promise<T>,
): T | InputRequiredOutcome | Promise<T | InputRequiredOutcome> {
  const params = isPlainObject(request.params) ? request.params : undefined;
  if (
    request.era !== "modern" || params?.inputResponses !== undefined || params?.requestState !== undefined
  ) return rounds.run(request, body);
  const round = new ModernRound(request, { r: 0, a: {}, o: {} }, {});
  const binding = { method: request.method, params: params ?? {}, principal: request.principal };
  let value: T | Promise<T>;
  try {
    value = body(round);
  } catch (error) {
    return endRound(rounds.codec, round, { ok: false, error }, binding) as
      | T
      | InputRequiredOutcome
      | Promise<InputRequiredOutcome>;
  }
  if (!(value instanceof Promise)) return endRound(rounds.codec, round, { ok: true, value }, binding);
  return value.then(
    (resolved) => endRound(rounds.codec, round, { ok: true, value: resolved }, binding),
    (error: unknown) => endRound<T>(rounds.codec, round, { ok: false, error }, binding),
  );
}

/** A modern round: answers come from the retry's `inputResponses` or the carried state; the rest is collected. */
export class ModernRound extends BaseInput {
  readonly round: number;
  state: unknown;
  readonly #carried: CarriedState;
  readonly #responses: Record<string, unknown>;
  readonly #used: CarriedState["a"] = {};
  readonly #once: Record<string, unknown>;
  readonly #pending: InputRequests = {};
  #roundEnd: AbortController | undefined;
  #pendingCount = 0;
  #ended = false;

  constructor(request: InputRoundRequest, carried: CarriedState, responses: Record<string, unknown>) {
    super(request);
    this.round = carried.r;
    this.state = carried.s;
    this.#carried = carried;
    this.#responses = responses;
    this.#once = { ...carried.o };
  }

  get roundSignal(): AbortSignal {
    this.#roundEnd ??= new AbortController();
    if (this.#ended && this.#pendingCount > 0) {
      this.#roundEnd.abort(new InputRequiredSignal(Object.keys(this.#pending)[0]));
    }
    return this.#roundEnd.signal;
  }

  async once<T>(name: string, compute: () => T | Promise<T>): Promise<T> {
    if (Object.hasOwn(this.#once, name)) return this.#once[name] as T;
    const value = await compute();
    // Stored as JSON, so later rounds see exactly what this one sees.
    const json = JSON.parse(JSON.stringify(value ?? null)) as T;
    this.#once[name] = json;
    return json;
  }

  protected send(
    method: InputMethod,
    key: string,
    params: Record<string, unknown> | undefined,
  ): Promise<unknown> {
    if (this.#ended) return handled(Promise.reject(new InputRequiredSignal(key)));
    const fresh = Object.hasOwn(this.#responses, key) ? this.#responses[key] : undefined;
    const old = Object.hasOwn(this.#carried.a, key) && this.#carried.a[key].m === method
      ? this.#carried.a[key].v
      : undefined;
    const answer = fresh ?? old;
    if (answer !== undefined) {
      const wrong = invalidAnswer(method, answer);
      if (wrong !== undefined) {
        this.fatal ??= new RequestStateError(
          "invalid_input",
          `Invalid inputResponses[${JSON.stringify(key)}] for ${method}: ${wrong}`,
        );
        return handled(Promise.reject(this.fatal));
      }
      this.#used[key] = { m: method, v: answer };
      return Promise.resolve(answer);
    }
    const request: Record<string, unknown> = { method };
    if (params !== undefined) request.params = params;
    this.#pending[key] = request as unknown as InputRequests[string];
    this.#pendingCount++;
    return handled(Promise.reject(new InputRequiredSignal(key)));
  }

  /** Ends the round: later asks reject at once. Returns the input requests when there are any. */
  end(): InputRequests | undefined {
    this.#ended = true;
    if (this.#pendingCount === 0) return undefined;
    this.#roundEnd?.abort(new InputRequiredSignal(Object.keys(this.#pending)[0]));
    return this.#pending;
  }

  carryForward(): CarriedState {
    const next: CarriedState = { r: this.round + 1, a: this.#used, o: this.#once };
    if (this.state !== undefined) next.s = this.state;
    return next;
  }
}

/** The carried state, from a payload whose MAC verified (ours), still checked for shape. */
export function carriedStateOf(payload: unknown): CarriedState {
  if (
    !isPlainObject(payload) ||
    typeof payload.r !== "number" ||
    !isPlainObject(payload.a) ||
    !isPlainObject(payload.o) ||
    !Object.values(payload.a).every((entry) => isPlainObject(entry) && typeof entry.m === "string")
  ) {
    throw new RequestStateError("malformed", "Invalid requestState: it was not written by an input round");
  }
  return payload as unknown as CarriedState;
}
