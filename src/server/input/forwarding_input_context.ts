/**
 * `ForwardingInputContext`: the one layer that forwards a handler context's {@linkcode InputContext}
 * part (`elicit`, `sample`, `listRoots`, `canElicit`…, `round`, `state`, `once`, `roundSignal`) to
 * the input context of its request. The server's request context and the feature layer's handler
 * context both extend it, and a handler context built on a request context forwards straight to that
 * request's input context, not through it.
 * @module
 */
import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitResult,
  ListRootsResult,
} from "../../wire/protocol/v2026_07_28.ts";
import type { ElicitParams } from "./elicit_params.ts";
import type { InputCallOptions, InputContext } from "./input_rounds.ts";

/** Forwards every {@linkcode InputContext} member to the input context it is built on. */
export abstract class ForwardingInputContext implements InputContext {
  readonly #input: InputContext;
  /** True when this context only forwards its input part (no override): one built on it may skip it. */
  readonly #transparent: boolean;

  /**
   * `input`: where asks go. When `input` is a transparent forwarding context, this one forwards to
   * what that one forwards to. `transparent`: whether this context adds nothing to the input part.
   */
  constructor(input: InputContext, transparent: boolean) {
    this.#input = input instanceof ForwardingInputContext && input.#transparent ? input.#input : input;
    this.#transparent = transparent;
  }

  elicit(params: ElicitParams, options?: InputCallOptions): Promise<ElicitResult> {
    return this.#input.elicit(params, options);
  }

  sample(params: CreateMessageRequestParams, options?: InputCallOptions): Promise<CreateMessageResult> {
    return this.#input.sample(params, options);
  }

  listRoots(options?: InputCallOptions): Promise<ListRootsResult> {
    return this.#input.listRoots(options);
  }

  canElicit(mode?: "form" | "url"): boolean {
    return this.#input.canElicit(mode);
  }

  canSample(): boolean {
    return this.#input.canSample();
  }

  canListRoots(): boolean {
    return this.#input.canListRoots();
  }

  get round(): number {
    return this.#input.round;
  }

  get state(): unknown {
    return this.#input.state;
  }

  set state(value: unknown) {
    this.#input.state = value;
  }

  once<T>(name: string, compute: () => T | Promise<T>): Promise<T> {
    return this.#input.once(name, compute);
  }

  get roundSignal(): AbortSignal {
    return this.#input.roundSignal;
  }
}
