/**
 * `ClientInputs`: the client's side of server-to-client requests, in both eras. It holds the
 * handlers for elicitation, sampling and roots, declares the capabilities they imply, answers legacy
 * server requests (`elicitation/create`, `sampling/createMessage`, `roots/list`), and fulfils modern
 * `input_required` results by retrying the original request with `inputResponses` and the echoed
 * `requestState`.
 * @module
 */
import { asError, ErrorCodes, InvalidOptionError, JsonRpcError, ProtocolError } from "../wire/errors.ts";
import { isPlainObject } from "../wire/meta_envelope.ts";
import type { Capabilities, Era } from "../wire/protocol_versions.ts";
import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  ListRootsResult,
  Root,
} from "../wire/protocol/v2026_07_28.ts";
import { integerOption, numberOption } from "../stream/options.ts";
import { systemTimeProvider, type TimeProvider } from "../stream/time_provider.ts";
import { applyElicitationDefaults } from "./elicitation_defaults.ts";
import { answerInputRequests, type InputAnswerer, runInputRounds, type SendRequest } from "./input_rounds.ts";

export { type InputAnswerer, isInputRequiredResult, retryParams, type SendRequest } from "./input_rounds.ts";

/** What a client-side input handler gets besides the params. */
export interface ClientInputContext {
  /** `legacy`: a server-to-client JSON-RPC request; `modern`: an entry of an `input_required` result. */
  readonly era: Era;
  /** The `inputRequests` key (modern), or the request id as a string (legacy). */
  readonly key: string;
  /** Aborted when the request being fulfilled is cancelled or the connection closes. */
  readonly signal: AbortSignal;
}

/** Answers `elicitation/create` (ask the user). */
export type ElicitHandler = (
  params: ElicitRequestParams,
  context: ClientInputContext,
) => ElicitResult | Promise<ElicitResult>;
/** Answers `sampling/createMessage` (ask the LLM). */
export type SampleHandler = (
  params: CreateMessageRequestParams,
  context: ClientInputContext,
) => CreateMessageResult | Promise<CreateMessageResult>;
/** Answers `roots/list`. */
export type ListRootsHandler = (
  context: ClientInputContext,
) => readonly Root[] | ListRootsResult | Promise<readonly Root[] | ListRootsResult>;

/** Options of {@linkcode ClientInputs.onElicit}. */
export interface ElicitHandlerOptions {
  /**
   * Modes declared in `capabilities.elicitation`. Default `["form"]`.
   * @default ["form"]
   */
  modes?: readonly ("form" | "url")[];
  /**
   * Fill omitted fields of an accepted form with the schema's defaults (2025-11-25). Default true.
   * @default true
   */
  applyDefaults?: boolean;
}

/** Options of {@linkcode ClientInputs.onSample}. */
export interface SampleHandlerOptions {
  /**
   * Declare `sampling.tools` (the handler runs tool loops). Default false.
   * @default false
   */
  tools?: boolean;
  /**
   * Declare `sampling.context` (the handler honours `includeContext`). Default false.
   * @default false
   */
  context?: boolean;
}

/** Options of {@linkcode ClientInputs}. */
export interface ClientInputsOptions {
  /**
   * Retries of one request that `input_required` may cause before it fails. Default 10.
   * @default 10
   */
  maxInputRounds?: number;
  /**
   * The pause before retrying an `input_required` that asks for nothing (only `requestState`: the
   * server sheds load), in milliseconds. Default 250, as the MCP TypeScript SDK.
   * @default 250, as the MCP TypeScript SDK
   */
  stateOnlyRetryDelay?: number;
  /**
   * The clock of `stateOnlyRetryDelay`. Default: the system clock.
   * @default the system clock
   */
  timeProvider?: TimeProvider;
}

/** Options of one {@linkcode ClientInputs.request}. */
export interface InputRequestOptions {
  /** Aborts the request and any handler fulfilling it. */
  signal?: AbortSignal;
  /** `"auto"` (default) fulfils input_required results and retries; `"manual"` returns the first result as is. */
  inputRequired?: "auto" | "manual";
  /** Overrides the instance's `maxInputRounds` for this request. */
  maxInputRounds?: number;
  /**
   * Answers the input requests instead of this instance's handlers; `undefined` for a method it
   * cannot answer. `ContextClient` passes its own (its `handle()` handlers first, then these).
   */
  answer?: InputAnswerer;
}

const INPUT_METHODS = new Set(["elicitation/create", "sampling/createMessage", "roots/list"]);

/**
 * The client's input handlers and the loop that fulfils `input_required` results.
 *
 * @example
 * ```ts
 * declare const transport: ClientTransport, askUser: (params: unknown) => Promise<Record<string, string>>;
 * declare const callMyLlm: (params: unknown) => Promise<{ role: "assistant"; content: { type: "text"; text: string }; model: string }>;
 * const inputs = new ClientInputs()
 *   .onElicit(async (params) => ({ action: "accept", content: await askUser(params) }))
 *   .onSample(async (params) => callMyLlm(params))
 *   .setRoots([{ uri: "file:///work", name: "work" }]);
 * const client = await ContextClient.connect(transport, { capabilities: inputs.capabilities() });
 * inputs.attach(client); // answers legacy server requests, sends roots/list_changed
 * const result = await inputs.request((m, p, o) => client.request(m, p, o), "tools/call", { name: "deploy", arguments: {} });
 * ```
 */
export class ClientInputs {
  readonly maxInputRounds: number;
  readonly stateOnlyRetryDelay: number;
  readonly #time: TimeProvider;
  #elicit: { handler: ElicitHandler; modes: readonly ("form" | "url")[]; applyDefaults: boolean } | undefined;
  #sample: { handler: SampleHandler; tools: boolean; context: boolean } | undefined;
  #roots: ListRootsHandler | undefined;
  readonly #rootsListeners = new Set<() => void>();
  readonly #completeListeners = new Set<(elicitationId: string) => void>();
  readonly #urlElicitations = new Set<string>();
  #capabilities: Capabilities | undefined;

  constructor(options: ClientInputsOptions = {}) {
    this.maxInputRounds = integerOption("maxInputRounds", options.maxInputRounds, 10, 0);
    this.stateOnlyRetryDelay = numberOption("stateOnlyRetryDelay", options.stateOnlyRetryDelay, 250);
    this.#time = options.timeProvider ?? systemTimeProvider;
  }

  /** Registers the elicitation handler (declares `elicitation` with the given modes). */
  onElicit(handler: ElicitHandler, options: ElicitHandlerOptions = {}): this {
    const modes = options.modes ?? ["form"];
    if (modes.length === 0 || !modes.every((m) => m === "form" || m === "url")) {
      throw new InvalidOptionError(
        `Option modes must list "form" and/or "url", got ${JSON.stringify(modes)}`,
      );
    }
    this.#elicit = { handler, modes, applyDefaults: options.applyDefaults ?? true };
    this.#capabilities = undefined;
    return this;
  }

  /** Registers the sampling handler (declares `sampling`, plus `tools`/`context` when asked). */
  onSample(handler: SampleHandler, options: SampleHandlerOptions = {}): this {
    this.#sample = { handler, tools: options.tools ?? false, context: options.context ?? false };
    this.#capabilities = undefined;
    return this;
  }

  /** Registers a roots handler (declares `roots` with `listChanged`). */
  onListRoots(handler: ListRootsHandler): this {
    this.#roots = handler;
    this.#capabilities = undefined;
    this.#rootsChanged();
    return this;
  }

  /** Sets a fixed list of roots (declares `roots` with `listChanged`); a legacy server is told they changed. */
  setRoots(roots: readonly Root[]): this {
    const copy = roots.map((root) => ({ ...root }));
    return this.onListRoots(() => copy);
  }

  /** Calls `listener` whenever the roots change (the legacy wiring sends `notifications/roots/list_changed`). */
  onRootsChanged(listener: () => void): () => void {
    this.#rootsListeners.add(listener);
    return () => this.#rootsListeners.delete(listener);
  }

  /**
   * The capabilities the registered handlers imply; merge them into `initialize` (legacy) and every
   * request's `_meta` (modern). The same object until a handler is registered (do not modify it).
   */
  capabilities(): Capabilities {
    if (this.#capabilities) return this.#capabilities;
    const capabilities: Capabilities = {};
    if (this.#elicit) {
      capabilities.elicitation = Object.fromEntries(this.#elicit.modes.map((mode) => [mode, {}]));
    }
    if (this.#sample) {
      const sampling: Record<string, unknown> = {};
      if (this.#sample.tools) sampling.tools = {};
      if (this.#sample.context) sampling.context = {};
      capabilities.sampling = sampling;
    }
    if (this.#roots) capabilities.roots = { listChanged: true };
    this.#capabilities = capabilities;
    return capabilities;
  }

  /** True when a handler for `method` (`elicitation/create`, `sampling/createMessage`, `roots/list`) is registered. */
  canAnswer(method: string): boolean {
    return method === "elicitation/create"
      ? this.#elicit !== undefined
      : method === "sampling/createMessage"
      ? this.#sample !== undefined
      : method === "roots/list" && this.#roots !== undefined;
  }

  /**
   * Answers one input request (a legacy server request, or one entry of `inputRequests`). Rejects
   * with a `JsonRpcError`: -32601 for a method without a handler (as the roots page says), -32602 for
   * an elicitation mode this client did not declare or params that are not an object.
   */
  async answer(method: string, params: unknown, context: ClientInputContext): Promise<unknown> {
    if (!INPUT_METHODS.has(method)) {
      throw new JsonRpcError(ErrorCodes.MethodNotFound, `Method not found: ${method}`);
    }
    if (method === "roots/list") {
      if (!this.#roots) {
        throw new JsonRpcError(
          ErrorCodes.MethodNotFound,
          "Method not found: roots/list (this client has no roots capability)",
        );
      }
      const roots = await this.#roots(context);
      return Array.isArray(roots) ? { roots } : roots;
    }
    if (params !== undefined && !isPlainObject(params)) {
      throw new JsonRpcError(ErrorCodes.InvalidParams, `Invalid params of ${method}: expected an object`);
    }
    if (method === "sampling/createMessage") {
      if (!this.#sample) {
        throw new JsonRpcError(
          ErrorCodes.MethodNotFound,
          "Method not found: sampling/createMessage (this client has no sampling capability)",
        );
      }
      return this.#sample.handler((params ?? {}) as unknown as CreateMessageRequestParams, context);
    }
    if (!this.#elicit) {
      throw new JsonRpcError(
        ErrorCodes.MethodNotFound,
        "Method not found: elicitation/create (this client has no elicitation capability)",
      );
    }
    const mode = params?.mode === "url" ? "url" : "form";
    if (!this.#elicit.modes.includes(mode)) {
      throw new JsonRpcError(
        ErrorCodes.InvalidParams,
        `Invalid params: elicitation mode ${JSON.stringify(mode)} is not declared by this client`,
      );
    }
    if (mode === "url" && typeof params?.elicitationId === "string") {
      this.#urlElicitations.add(params.elicitationId);
    }
    const result = await this.#elicit.handler((params ?? {}) as unknown as ElicitRequestParams, context);
    return this.#elicit.applyDefaults ? applyElicitationDefaults(params, result) : result;
  }

  /**
   * Fulfils every entry of an `inputRequests` map (in parallel) and resolves with the
   * `inputResponses` map. Rejects with a `ProtocolError` when the map or an entry is malformed, or
   * names a method this client cannot answer.
   */
  async fulfil(
    inputRequests: unknown,
    options: { signal?: AbortSignal } = {},
  ): Promise<Record<string, unknown>> {
    if (!isPlainObject(inputRequests)) {
      throw new ProtocolError("The server's input_required result has inputRequests that is not an object");
    }
    return answerInputRequests(
      inputRequests,
      { answer: this.#answerModern, signal: options.signal },
      (_reason, message) => new ProtocolError(message),
    );
  }

  /** One modern input request answered by these handlers (a `ProtocolError` when they cannot). */
  readonly #answerModern: InputAnswerer = async (method, params, { key, signal }) => {
    if (!INPUT_METHODS.has(method)) {
      throw new ProtocolError(
        `The server's inputRequests[${JSON.stringify(key)}] asks for ${
          JSON.stringify(method)
        }, which is not an input request method`,
      );
    }
    try {
      return await this.answer(method, params, { era: "modern", key, signal });
    } catch (error) {
      if (error instanceof JsonRpcError) {
        throw new ProtocolError(
          `The server asked for ${method} (inputRequests[${
            JSON.stringify(key)
          }]) that this client cannot answer: ${error.message}`,
          { cause: error },
        );
      }
      throw error;
    }
  };

  /**
   * Sends `method` with `params` through `send` and, while the result is `input_required`, fulfils
   * its input requests and retries (a new request each time, so a new id; `requestState` echoed
   * exactly and omitted when absent), at most `maxInputRounds` retries. A result without
   * `resultType` is complete. A result with only `requestState` is retried after `stateOnlyRetryDelay`.
   * Rejects with a `ProtocolError` when the rounds run out or the server's result is malformed. In `"manual"` mode the first result is returned as is.
   */
  request(
    send: SendRequest,
    method: string,
    params: Record<string, unknown> = {},
    options: InputRequestOptions = {},
  ): Promise<unknown> {
    // Not an async function: this runs once per modern request (an async layer is a promise and a hop).
    try {
      const maxRounds = integerOption("maxInputRounds", options.maxInputRounds, this.maxInputRounds, 0);
      if (options.inputRequired === "manual") {
        return Promise.resolve(send(method, params, { signal: options.signal }));
      }
      return runInputRounds(send, method, params, {
        maxRounds,
        answer: options.answer ?? this.#answerModern,
        stateOnlyRetryDelay: this.stateOnlyRetryDelay,
        time: this.#time,
        signal: options.signal,
      });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Handles `notifications/elicitation/complete` (legacy): listeners hear the id of a URL elicitation
   * this client accepted; unknown or already-completed ids are ignored, as the spec requires.
   */
  elicitationComplete(params: unknown): void {
    const id = isPlainObject(params) ? params.elicitationId : undefined;
    if (typeof id !== "string" || !this.#urlElicitations.delete(id)) return;
    for (const listener of this.#completeListeners) listener(id);
  }

  /** Calls `listener` with the `elicitationId` of each completed URL elicitation. Returns an unsubscribe function. */
  onElicitationComplete(listener: (elicitationId: string) => void): () => void {
    this.#completeListeners.add(listener);
    return () => this.#completeListeners.delete(listener);
  }

  /**
   * Wires these handlers into a legacy-capable client: registers the three server-request methods
   * and `notifications/elicitation/complete`, and sends `notifications/roots/list_changed` when the
   * roots change (legacy era only); a notification that cannot be sent goes to `options.onReport`.
   * Returns a function that stops the roots notifications.
   */
  attach(client: AttachableClient, options: { onReport?: (error: Error) => void } = {}): () => void {
    for (const method of INPUT_METHODS) {
      client.handle(
        method,
        (params, context) =>
          this.answer(method, params, { era: "legacy", key: String(context.id), signal: context.signal }),
      );
    }
    client.onNotification("notifications/elicitation/complete", (params) => this.elicitationComplete(params));
    return this.onRootsChanged(() => {
      if (client.era === "legacy") {
        void client.notify("notifications/roots/list_changed").catch((error: unknown) =>
          options.onReport?.(asError(error))
        );
      }
    });
  }

  #rootsChanged(): void {
    for (const listener of this.#rootsListeners) listener();
  }
}

/** The part of a client that {@linkcode ClientInputs.attach} uses (a `ContextClient` has it). */
export interface AttachableClient {
  readonly era: Era;
  handle(
    method: string,
    handler: (params: unknown, context: { id: string | number; signal: AbortSignal }) => unknown,
  ): unknown;
  onNotification(method: string, handler: (params: unknown) => unknown): unknown;
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
}
