/**
 * Outgoing requests awaiting a reply: ids, the caller's `AbortSignal`, replies matched to calls, and
 * every call rejected at once when the connection ends.
 * @module
 */
import { type JsonRpcError, ProtocolError } from "../wire/errors.ts";
import { idKey, type RequestId } from "../wire/json_rpc_message.ts";
import { JsonText } from "../wire/json_text.ts";
import { quotePeerText } from "../wire/quote_peer_text.ts";

/** What {@linkcode PendingCalls} needs from the connection. */
export interface CallHost {
  /** Queues one message for output. */
  send(message: Record<string, unknown> | JsonText, signal?: AbortSignal): Promise<void>;
  /** The caller aborted a call that was written: tell the peer. */
  cancelled(id: RequestId, reason: unknown): void;
  /** A send failed: the connection checks whether output broke. */
  sendFailed(): void;
  report(error: Error): void;
}

/** Options of one call. */
export interface CallOptions {
  signal?: AbortSignal;
  /** The request id; default the next number. */
  id?: RequestId;
}

/** A reply from the peer, as classified from the wire. */
export type Reply =
  | { kind: "result"; id: RequestId; result: unknown }
  | { kind: "error"; id: RequestId | undefined; error: JsonRpcError };

interface PendingCall {
  method: string;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** A map key that keeps `1` and `"1"` apart: a number id is its own key (no string made per call), a string id is `idKey`'s. */
type CallKey = number | string;

function callKey(id: RequestId): CallKey {
  return typeof id === "number" ? id : idKey(id);
}

/** How many cancelled ids are remembered, so that a late reply to one is dropped quietly. */
const REMEMBERED_CANCELS = 1024;

/** The outgoing side of a connection: one entry per request sent and not yet answered. */
export class PendingCalls {
  readonly #host: CallHost;
  readonly #calls = new Map<CallKey, PendingCall>();
  readonly #cancelled = new Set<CallKey>();
  #nextId = 1;

  constructor(host: CallHost) {
    this.#host = host;
  }

  /** Calls awaiting a reply. */
  get size(): number {
    return this.#calls.size;
  }

  /**
   * Sends a request and resolves with its result; rejects with the peer's error, with the signal's
   * reason when `signal` aborts (after `cancelled` is told, if the request was queued), or with the
   * send's error.
   */
  call<T>(method: string, params?: unknown, options: CallOptions = {}): Promise<T> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = options.id ?? this.#nextId++;
    const key = callKey(id);
    if (this.#calls.has(key)) {
      return Promise.reject(
        new ProtocolError(`Request id ${JSON.stringify(id)} is already awaiting a reply`),
      );
    }
    let call!: PendingCall;
    const promise = new Promise<T>((
      resolve,
      reject,
    ) => (call = { method, resolve: resolve as (value: unknown) => void, reject }));
    this.#calls.set(key, call);
    const sending = this.#host.send(requestMessage(id, method, params), signal);
    if (signal) this.#watchSignal(signal, key, id, call, sending);
    sending.then(undefined, (error: unknown) => {
      if (this.#calls.get(key) !== call) return;
      this.#calls.delete(key);
      call.reject(signal?.aborted ? signal.reason : error);
      this.#host.sendFailed();
    });
    return promise;
  }

  /**
   * The caller's signal: an abort rejects the call and, once its request was queued, tells the peer.
   * The listener goes when the call settles.
   */
  #watchSignal(
    signal: AbortSignal,
    key: CallKey,
    id: RequestId,
    call: PendingCall,
    sending: Promise<void>,
  ): void {
    const onAbort = (): void => {
      if (this.#calls.get(key) !== call) return;
      this.#calls.delete(key);
      this.#rememberCancelled(key);
      const reason = signal.reason;
      reject(reason);
      // Tell the peer only when the request was queued: the send settles either way, and a send
      // that was still waiting for room rejects with the same signal, so nothing was written.
      void sending.then(
        () => this.#host.cancelled(id, reason),
        () => {}, // that send's failure already reached the caller through the send's own handler
      );
    };
    const { resolve, reject } = call;
    const cleanup = (): void => signal.removeEventListener("abort", onAbort);
    call.resolve = (value) => (cleanup(), resolve(value));
    call.reject = (error) => (cleanup(), reject(error));
    signal.addEventListener("abort", onAbort, { once: true });
  }

  /** Hands a reply to its call; a reply nobody waits for is reported (unless it answers a cancelled call). */
  settle(reply: Reply): void {
    if (reply.kind === "error" && reply.id === undefined) {
      this.#host.report(
        new ProtocolError(
          `Error response without an id: ${reply.error.code} ${quotePeerText(reply.error.message)}`,
          { cause: reply.error },
        ),
      );
      return;
    }
    const key = callKey(reply.id!);
    const call = this.#calls.get(key);
    if (!call) {
      if (this.#cancelled.delete(key)) return; // a late reply to a call we cancelled
      this.#host.report(new ProtocolError(`Reply to unknown request id ${quotePeerText(reply.id)}: dropped`));
      return;
    }
    this.#calls.delete(key);
    if (reply.kind === "result") call.resolve(reply.result);
    else call.reject(reply.error);
  }

  /** Rejects the call `id` with `error` (a reply that could not be read); false when no call waits for it. */
  fail(id: RequestId, error: Error): boolean {
    const key = callKey(id);
    const call = this.#calls.get(key);
    if (!call) return this.#cancelled.delete(key) && false;
    this.#calls.delete(key);
    call.reject(error);
    return true;
  }

  /** Rejects every call now with `error`. */
  rejectAll(error: Error): void {
    if (this.#calls.size === 0) return;
    const calls = [...this.#calls.values()];
    this.#calls.clear();
    for (const call of calls) call.reject(error);
  }

  /** Ids we cancelled recently: a late reply to one of them is expected and dropped without a report. */
  #rememberCancelled(key: CallKey): void {
    this.#cancelled.add(key);
    if (this.#cancelled.size > REMEMBERED_CANCELS) {
      this.#cancelled.delete(this.#cancelled.values().next().value!);
    }
  }
}

/**
 * The request message: an object, or its JSON text when `params` is already text (a `JsonText`, as the
 * client's modern envelope is spliced in; see `envelope_text.ts`).
 */
function requestMessage(id: RequestId, method: string, params: unknown): Record<string, unknown> | JsonText {
  if (params instanceof JsonText) {
    return new JsonText(
      `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":${
        JSON.stringify(method)
      },"params":${params.text}}`,
    );
  }
  const message: Record<string, unknown> = { jsonrpc: "2.0", id, method };
  if (params !== undefined) message.params = params;
  return message;
}
