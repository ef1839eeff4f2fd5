/**
 * `BaseInput`: what both eras' input contexts share: the method and capability rules of an ask, and
 * its key.
 * @module
 */
import { ErrorCodes, JsonRpcError } from "../../wire/errors.ts";
import { isPlainObject } from "../../wire/meta_envelope.ts";
import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitResult,
  ListRootsResult,
} from "../../wire/protocol/v2026_07_28.ts";
import type { ElicitParams } from "./elicit_params.ts";
import {
  acceptsInputRequests,
  type InputMethod,
  missingCapabilities,
  missingCapabilityError,
  supportsElicitation,
} from "./input_capabilities.ts";
import type { InputCallOptions, InputContext, InputRoundRequest } from "./input_context.ts";

const MAX_KEY_LENGTH = 256;

/** Shared by both eras: capability and method rules, keys. */
export abstract class BaseInput implements InputContext {
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

  elicit(params: ElicitParams, options?: InputCallOptions): Promise<ElicitResult> {
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

/** Marks a rejected promise as handled (the handler may never await it) and returns it. */
export function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}
