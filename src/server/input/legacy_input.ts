/**
 * `LegacyInput`: a 2025-11-25 request's input context: each ask is a real server-to-client request,
 * bounded by `clientRequestTimeout` and the request's signal.
 * @module
 */
import { ErrorCodes, JsonRpcError, ProtocolError, TimeoutError } from "../../wire/errors.ts";
import type { TimeProvider } from "../../stream/time_provider.ts";
import { type InputMethod, invalidAnswer } from "./input_capabilities.ts";
import { BaseInput } from "./base_input.ts";
import type { InputRoundRequest } from "./input_context.ts";

/** A legacy call: real server-to-client requests, bounded. */
export class LegacyInput extends BaseInput {
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
