/**
 * `RoundInput`: the {@linkcode InputRoundRequest} of one dispatched request.
 * @module
 */
import type { IncomingRequest } from "../wire/json_rpc_message.ts";
import type { Capabilities } from "../wire/protocol_versions.ts";
import type { DispatchContext } from "./dispatch_context.ts";
import type { InputRoundRequest } from "./input/input_rounds.ts";
import type { RequestEra } from "./server_request_context.ts";

/**
 * The {@linkcode InputRoundRequest} of one request: a class rather than an object literal with a
 * getter and a closure, since one is made per request. The signal is read only if something waits on
 * it; `sendRequest` is made only if a handler asks the client.
 */
export class RoundInput implements InputRoundRequest {
  readonly era: RequestEra["era"];
  readonly method: string;
  readonly params: unknown;
  readonly clientCapabilities: Capabilities;
  readonly principal: string | undefined;
  /** Not a `#private` field: `InputRounds.passive` derives from this object with `Object.create`, and the getters below must work on the derived one. */
  private readonly context: DispatchContext;

  constructor(request: IncomingRequest, context: DispatchContext, era: RequestEra) {
    this.era = era.era;
    this.method = request.method;
    this.params = request.params;
    this.clientCapabilities = era.clientCapabilities;
    this.principal = context.principal;
    this.context = context;
  }

  get signal(): AbortSignal {
    return this.context.signal;
  }

  get sendRequest(): InputRoundRequest["sendRequest"] {
    const context = this.context;
    const send = context.request;
    return send === undefined
      ? undefined
      : (method, params, options) => send.call(context, method, params, options);
  }
}
