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
import { ErrorCodes, JsonRpcError, ProtocolError, TimeoutError } from "../wire/errors.ts";
import { isPlainObject } from "../wire/meta_envelope.ts";
import type { Capabilities, Era } from "../wire/protocol_versions.ts";
import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  InputRequests,
  ListRootsResult,
} from "../wire/protocol/v2026_07_28.ts";
import { numberOption } from "../stream/options.ts";
import { systemTimeProvider, type TimeProvider } from "../stream/time_provider.ts";
import {
  acceptsInputRequests,
  type InputMethod,
  invalidAnswer,
  missingCapabilities,
  missingCapabilityError,
  supportsElicitation,
} from "./input_capabilities.ts";
import { type RequestStateBinding, RequestStateCodec } from "./request_state.ts";
import { RequestStateError } from "./request_state_error.ts";

/** Options of one ask. */
export interface InputCallOptions {
  /** The key of this input request in `inputRequests` (modern era). Default `<kind>-<n>`. At most 256 characters. */
  key?: string;
}

/** What a handler uses to ask the client; the same in both eras. */
export interface InputContext {
  /** Asks the user (form or URL mode). Needs the client's `elicitation` capability (`elicitation.url` for URL mode), else -32021. */
  elicit(params: ElicitRequestParams, options?: InputCallOptions): Promise<ElicitResult>;
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

/** Options of {@linkcode InputRounds}. */
export interface InputRoundsOptions {
  /** Seals and opens `requestState`. Default: a codec with a random per-process key (see {@linkcode RequestStateCodec}). */
  codec?: RequestStateCodec;
  /** Legacy: how long a server-to-client request may go unanswered. Default 60 000 ms. */
  clientRequestTimeout?: number;
  /** The clock of `clientRequestTimeout`. Default: the system clock. */
  timeProvider?: TimeProvider;
}

const SIGNAL_BRAND: unique symbol = Symbol.for("onemodelcontext.inputRequiredSignal") as never;
const MAX_KEY_LENGTH = 256;

/**
 * Thrown into a modern handler by an ask whose answer has not arrived: the round is over. Let it
 * propagate (rethrow what you do not recognise); if a handler swallows it, the round still ends with
 * `input_required` and the handler's value is discarded.
 */
export class InputRequiredSignal extends Error {
  /** The key of the input request that ended the round. */
  readonly key: string;
  constructor(key: string) {
    super(
      `Input required: the client has not answered input request ${
        JSON.stringify(key)
      } yet; this round ends and the request answers input_required`,
    );
    this.name = "InputRequiredSignal";
    this.key = key;
    Object.defineProperty(this, SIGNAL_BRAND, { value: true });
  }
  static override [Symbol.hasInstance](value: unknown): value is InputRequiredSignal {
    return typeof value === "object" && value !== null &&
      (value as { [SIGNAL_BRAND]?: unknown })[SIGNAL_BRAND] === true;
  }
}

/** What a modern round carries from one round to the next inside `requestState`. */
interface CarriedState {
  /** The round number of the run that reads it. */
  r: number;
  /** Answers used so far, by key: the method they answered and the value. */
  a: Record<string, { m: InputMethod; v: unknown }>;
  /** `InputContext.state`. */
  s?: unknown;
  /** `InputContext.once` values by name. */
  o: Record<string, unknown>;
}

/**
 * Runs handlers that ask the client, in either era.
 *
 * @example
 * ```ts
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

type RoundOutcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** The end of a modern round: its outcome, or `input_required` with the sealed state when it asked. */
function endRound<T>(
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
 * `rounds.run(request, body)` for a modern request, without a promise when nothing needs one: a first
 * round (no `requestState`, no `inputResponses`) whose body returns a value, not a promise, and asks
 * nothing. Otherwise the same outcome, as a promise. Internal: the stream's hot path (see dispatch).
 */
export function runModernRound<T>(
  rounds: InputRounds,
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

/** Shared by both eras: capability and method rules, keys. */
abstract class BaseInput implements InputContext {
  abstract readonly round: number;
  abstract state: unknown;
  abstract readonly roundSignal: AbortSignal;
  /** A failure that ends the request whatever the handler does with it (bad input, misuse of the API). */
  fatal: Error | undefined;
  protected readonly request: InputRoundRequest;
  #calls = 0;
  readonly #keys = new Set<string>();

  constructor(request: InputRoundRequest) {
    this.request = request;
  }

  elicit(params: ElicitRequestParams, options?: InputCallOptions): Promise<ElicitResult> {
    return this.#ask("elicitation/create", "elicit", params, options) as Promise<ElicitResult>;
  }

  sample(params: CreateMessageRequestParams, options?: InputCallOptions): Promise<CreateMessageResult> {
    return this.#ask("sampling/createMessage", "sample", params, options) as Promise<CreateMessageResult>;
  }

  listRoots(options?: InputCallOptions): Promise<ListRootsResult> {
    return this.#ask("roots/list", "roots", undefined, options) as Promise<ListRootsResult>;
  }

  canElicit(mode: "form" | "url" = "form"): boolean {
    return supportsElicitation(this.request.clientCapabilities, mode);
  }

  canSample(): boolean {
    return isPlainObject(this.request.clientCapabilities.sampling);
  }

  canListRoots(): boolean {
    return isPlainObject(this.request.clientCapabilities.roots);
  }

  abstract once<T>(name: string, compute: () => T | Promise<T>): Promise<T>;

  protected abstract send(
    method: InputMethod,
    key: string,
    params: Record<string, unknown> | undefined,
  ): Promise<unknown>;

  /** Throws when this request can never ask (checked before the capabilities, so the message names the real cause). */
  protected precheck(_method: InputMethod): void {}

  #ask(
    method: InputMethod,
    kind: string,
    params: unknown,
    options: InputCallOptions | undefined,
  ): Promise<unknown> {
    const index = this.#calls++;
    try {
      if (!acceptsInputRequests(this.request.method)) {
        throw new JsonRpcError(
          ErrorCodes.InternalError,
          `Cannot send ${method} while handling ${this.request.method}: only tools/call, prompts/get and resources/read may ask the client`,
        );
      }
      if (method !== "roots/list" && !isPlainObject(params)) {
        throw new TypeError(
          `The params of ${method} must be an object, got ${params === null ? "null" : typeof params}`,
        );
      }
      const key = options?.key ?? `${kind}-${index}`;
      if (typeof key !== "string" || key.length === 0 || key.length > MAX_KEY_LENGTH) {
        throw new TypeError(
          `Input key must be a string of 1 to ${MAX_KEY_LENGTH} characters, got ${
            JSON.stringify(key)?.slice(0, 60)
          }`,
        );
      }
      if (this.#keys.has(key)) {
        throw new TypeError(
          `Input key ${JSON.stringify(key)} is used twice in one ${this.request.method} handler`,
        );
      }
      this.#keys.add(key);
      this.precheck(method);
      const required = missingCapabilities(method, params, this.request.clientCapabilities);
      if (required !== undefined) throw missingCapabilityError(method, required);
      return this.send(method, key, params as Record<string, unknown> | undefined);
    } catch (error) {
      // A missing capability is the handler's to handle (it may fall back); misuse ends the request.
      if (!(error instanceof JsonRpcError && error.code === ErrorCodes.MissingRequiredClientCapability)) {
        this.fatal ??= error as Error;
      }
      return handled(Promise.reject(error));
    }
  }
}

/** A modern round: answers come from the retry's `inputResponses` or the carried state; the rest is collected. */
class ModernRound extends BaseInput {
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

/** A legacy call: real server-to-client requests, bounded. */
class LegacyInput extends BaseInput {
  readonly round = 0;
  state: unknown;
  readonly #timeout: number;
  readonly #time: TimeProvider;
  readonly #once = new Map<string, unknown>();
  #never: AbortController | undefined;

  constructor(request: InputRoundRequest, timeout: number, time: TimeProvider) {
    super(request);
    this.#timeout = timeout;
    this.#time = time;
  }

  get roundSignal(): AbortSignal {
    this.#never ??= new AbortController();
    return this.#never.signal;
  }

  async once<T>(name: string, compute: () => T | Promise<T>): Promise<T> {
    if (this.#once.has(name)) return this.#once.get(name) as T;
    const value = await compute();
    this.#once.set(name, value);
    return value;
  }

  protected override precheck(method: InputMethod): void {
    if (this.request.sendRequest === undefined) {
      throw new JsonRpcError(
        ErrorCodes.InternalError,
        `Cannot send ${method} to the client: this legacy connection cannot carry server-to-client requests (stateless transport); use a session, or a 2026-07-28 client`,
      );
    }
  }

  protected async send(
    method: InputMethod,
    _key: string,
    params: Record<string, unknown> | undefined,
  ): Promise<unknown> {
    const sendRequest = this.request.sendRequest!;
    let outgoing = params;
    if (
      method === "elicitation/create" && params?.mode === "url" && typeof params.elicitationId !== "string"
    ) {
      // 2025-11-25 requires an elicitationId on URL mode; the modern era has none.
      outgoing = { ...params, elicitationId: crypto.randomUUID() };
    }
    const controller = new AbortController();
    const outer = this.request.signal;
    const onAbort = (): void => controller.abort(outer!.reason);
    if (outer?.aborted) throw outer.reason;
    outer?.addEventListener("abort", onAbort, { once: true });
    const timer = this.#time.setTimer(
      () =>
        controller.abort(
          new TimeoutError(`The client did not answer ${method} within ${this.#timeout} ms`, this.#timeout),
        ),
      this.#timeout,
    );
    try {
      const result = await sendRequest(method, outgoing, { signal: controller.signal });
      const wrong = invalidAnswer(method, result);
      if (wrong !== undefined) {
        throw new ProtocolError(`The client answered ${method} with an invalid result: ${wrong}`);
      }
      return result;
    } finally {
      timer.cancel();
      outer?.removeEventListener("abort", onAbort);
    }
  }
}

/** Marks a rejected promise as handled (the handler may never await it) and returns it. */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

/** The carried state, from a payload whose MAC verified (ours), still checked for shape. */
function carriedStateOf(payload: unknown): CarriedState {
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
