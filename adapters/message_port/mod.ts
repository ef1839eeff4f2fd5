/// <reference lib="esnext.disposable" preserve="true" />
/**
 * `onemodelcontext/message-port`: a byte duplex over a `MessagePort` (a browser `MessageChannel`, a
 * Worker's port, Node `worker_threads`), with credit-based flow control so that the output bound of a
 * {@linkcode NewlineChannel} holds across the port, and explicit end-of-stream and abort signals.
 *
 * ## Wire
 *
 * Both ends run this same code. Every message is a plain object whose `omc` field names its kind;
 * anything else on the port is ignored.
 *
 * | message | direction | meaning |
 * |---|---|---|
 * | `{ omc: "credit", bytes: n }` | reader → writer | "You may send `n` more bytes." The first one, sent as soon as an end is created, grants the whole receive window; later ones hand back bytes the reader's consumer has pulled. |
 * | `{ omc: "data", bytes: ArrayBuffer }` | writer → reader | Payload. Its `byteLength` never exceeds the writer's remaining credit; a reader that gets more fails with a `"protocol"` error. The buffer is transferred, never cloned (see the `chunks` option for whether the writer's own buffer or a copy of it). |
 * | `{ omc: "end" }` | writer → reader | End of stream: the writable side was closed. The peer's readable ends once it has delivered all data before it. |
 * | `{ omc: "abort", reason: string }` | writer → reader | The writable side was aborted or the connection destroyed: the peer's readable errors with a `ClosedError` naming `reason`. |
 * | `{ omc: "cancel", reason: string }` | reader → writer | The reader stopped reading (its readable was cancelled, or the connection closed or destroyed): the peer's pending and later writes fail with a `ClosedError`. |
 *
 * Credit makes the bytes sent and not yet pulled by the peer's consumer (in the port or in the peer's
 * receive buffer) at most the peer's window; a write waits while the writer has no credit, so the
 * bytes held anywhere between two `NewlineChannel`s stay bounded. The reader hands credit back in
 * batches of a quarter window, so the writer always has at least three quarters of a window of credit
 * while the reader keeps up.
 *
 * A port has no reliable close event (browsers fire none, not even when the other side's Worker is
 * terminated: measured on Chromium 156), so `end`/`abort` carry what a pipe's EOF or EPIPE would. Where
 * the host does fire `close` (Node `worker_threads`, also when the Worker is terminated), an end that
 * has not seen `end` errors its readable with a `ClosedError` and fails its writes. In a browser, the
 * owner of a Worker it terminates should `destroy()` the connection; a `ContextClient`'s timeouts bound
 * the wait otherwise.
 *
 * @example
 * ```ts
 * // page
 * const { port1, port2 } = new MessageChannel();
 * worker.postMessage({ port: port2 }, [port2]);
 * const client = await ContextClient.connect(fromMessagePort(port1), { era: "auto" });
 *
 * // worker
 * self.onmessage = (event) => server.serve(fromMessagePort(event.data.port));
 * ```
 * @module
 */
import { type Deferred, deferred } from "../../src/stream/deferred.ts";
import { ReceiveCredit, SendCredit } from "./credit_window.ts";
import { ClosedError, InvalidOptionError, ProtocolError } from "../../src/wire/errors.ts";
import type { TransportConnection } from "../../src/rpc/transport.ts";

/**
 * What {@linkcode fromMessagePort} needs of a port: a browser `MessagePort`, a Node `worker_threads`
 * `MessagePort`, a `Worker`, or a dedicated worker's `self`. With `addEventListener` the adapter listens
 * for `message`, `messageerror` and `close` and calls `start()`; without it, it sets `onmessage`.
 * Note that `close()` on a dedicated worker's `self` closes the Worker: pass `closePort: false` there
 * unless that is what you want.
 */
export interface MessagePortLike {
  postMessage(message: unknown, transfer: ArrayBuffer[]): void;
  // deno-lint-ignore no-explicit-any
  addEventListener?(type: string, listener: (event: any) => void): void;
  // deno-lint-ignore no-explicit-any
  removeEventListener?(type: string, listener: (event: any) => void): void;
  // deno-lint-ignore no-explicit-any
  onmessage?: ((event: any) => void) | null;
  start?(): void;
  close?(): void;
}

/** Options of {@linkcode fromMessagePort}. */
export interface FromMessagePortOptions {
  /**
   * Bytes the peer may send before this end's consumer reads them: the receive window, and so the
   * most bytes in the port or in this end's buffer at once in that direction. Default 256 KiB.
   */
  receiveWindowBytes?: number;
  /**
   * How written chunks reach the port. Default `"copy"`: the bytes are copied once into a fresh
   * buffer, and that buffer is transferred (never structured-cloned a second time); the writer's chunk
   * is untouched, as every `WritableStream` writer expects. `"transfer"`: a chunk that spans its whole,
   * unshared `ArrayBuffer` and fits the credit is handed over without any copy, which **detaches the
   * writer's chunk** (its `byteLength` becomes 0); views into larger or shared buffers are still copied.
   * Use `"transfer"` only with a writer that never touches a chunk after writing it.
   */
  chunks?: "copy" | "transfer";
  /** Close the port once both directions are done, or on `close()`/`destroy()`. Default `true`. */
  closePort?: boolean;
}

/** The default receive window of {@linkcode fromMessagePort}: 256 KiB. */
export const DEFAULT_RECEIVE_WINDOW_BYTES = 256 * 1024;

/** A duplex over a port: a {@linkcode TransportConnection} with flow-control figures. */
export interface MessagePortConnection extends TransportConnection, AsyncDisposable {
  /** This end's receive window in bytes. */
  readonly receiveWindowBytes: number;
  /** Bytes this end sent that the peer's consumer has not yet pulled (as far as credit shows). At most the peer's window. */
  readonly bytesInTransit: number;
  /** The highest {@linkcode bytesInTransit} so far. */
  readonly maxBytesInTransit: number;
  /** Bytes received and not yet pulled by this end's consumer. */
  readonly bufferedInputBytes: number;
  /** Data bytes posted (`sentBytes`) and received (`receivedBytes`), and how many of the sent ones were copied (`copiedBytes`). */
  readonly stats: { readonly sentBytes: number; readonly receivedBytes: number; readonly copiedBytes: number };
  /** Resolves once both directions are done (ended, cancelled, aborted or destroyed). Never rejects. */
  readonly closed: Promise<void>;
  /** Why input ended abnormally: the peer aborted, broke the credit rule, or the port closed before `end`. */
  closeError(): Error | undefined;
  /** Tears both directions down now: the peer's readable errors and its writes fail. */
  destroy(reason?: unknown): void;
  /**
   * Ends both directions and releases the port: sends `end` (or `abort` when a write is cut off half
   * sent), stops reading (`cancel`), closes the port. Resolves at once; nothing waits on the peer.
   */
  close(): Promise<void>;
}

/**
 * Wraps `port` as a byte duplex with credit-based flow control. Run it on both ends of a channel.
 *
 * @example
 * ```ts
 * const { port1, port2 } = new MessageChannel();
 * const a = fromMessagePort(port1);
 * const b = fromMessagePort(port2, { receiveWindowBytes: 64 * 1024 });
 * const channel = new NewlineChannel(a);
 * ```
 */
export function fromMessagePort(port: MessagePortLike, options: FromMessagePortOptions = {}): MessagePortConnection {
  return new MessagePortDuplex(port, options);
}

type Wire =
  | { omc: "credit"; bytes: number }
  | { omc: "data"; bytes: ArrayBuffer }
  | { omc: "end" }
  | { omc: "abort"; reason: string }
  | { omc: "cancel"; reason: string };

class MessagePortDuplex implements MessagePortConnection {
  readonly readable: ReadableStream<Uint8Array>;
  readonly writable: WritableStream<Uint8Array>;
  readonly receiveWindowBytes: number;
  readonly #port: MessagePortLike;
  readonly #transfer: boolean;
  readonly #closePort: boolean;
  readonly #receiveCredit: ReceiveCredit;
  readonly #sendCredit = new SendCredit();
  readonly #listeners: Array<[string, (event: { data?: unknown }) => void]> = [];
  #closed = deferred();
  #portClosed = false;
  #closeError: Error | undefined;
  // input
  #readController!: ReadableStreamDefaultController<Uint8Array>;
  #inbox: Uint8Array[] = [];
  #inboxBytes = 0;
  #inputEnded = false; // `end` arrived
  #inputDone = false;
  #arrival: Deferred | undefined;
  // output
  #writeController!: WritableStreamDefaultController;
  #writing = false;
  #outputDone = false;
  #outputError: Error | undefined;
  #sentBytes = 0;
  #receivedBytes = 0;
  #copiedBytes = 0;

  constructor(port: MessagePortLike, options: FromMessagePortOptions) {
    this.#receiveCredit = new ReceiveCredit(options.receiveWindowBytes ?? DEFAULT_RECEIVE_WINDOW_BYTES);
    this.receiveWindowBytes = this.#receiveCredit.windowBytes;
    const chunks = options.chunks ?? "copy";
    if (chunks !== "copy" && chunks !== "transfer") {
      throw new InvalidOptionError(`Option chunks must be "copy" or "transfer", got ${JSON.stringify(chunks)}`);
    }
    this.#transfer = chunks === "transfer";
    this.#closePort = options.closePort ?? true;
    this.#port = port;
    this.readable = new ReadableStream<Uint8Array>(
      {
        start: (controller) => void (this.#readController = controller),
        pull: () => this.#pull(),
        cancel: (reason) => this.#cancelInput(reason),
      },
      { highWaterMark: 0 },
    );
    this.writable = new WritableStream<Uint8Array>({
      start: (controller) => void (this.#writeController = controller),
      write: (chunk, controller) => this.#write(chunk, controller.signal),
      close: () => this.#endOutput("end"),
      abort: (reason) => this.#endOutput("abort", reason),
    });
    this.#listen();
    this.#post({ omc: "credit", bytes: this.#receiveCredit.initialGrant() });
  }

  get bytesInTransit(): number {
    return this.#sendCredit.bytesInTransit;
  }

  get maxBytesInTransit(): number {
    return this.#sendCredit.maxBytesInTransit;
  }

  get bufferedInputBytes(): number {
    return this.#inboxBytes;
  }

  get stats(): { sentBytes: number; receivedBytes: number; copiedBytes: number } {
    return { sentBytes: this.#sentBytes, receivedBytes: this.#receivedBytes, copiedBytes: this.#copiedBytes };
  }

  get closed(): Promise<void> {
    return this.#closed.promise;
  }

  closeError(): Error | undefined {
    return this.#closeError;
  }

  destroy(reason?: unknown): void {
    const error = reason instanceof Error ? reason : new ClosedError("The MessagePort connection was destroyed", { cause: reason });
    if (!this.#outputDone) {
      this.#post({ omc: "abort", reason: describe(error) });
      this.#failOutput(error);
    }
    if (!this.#inputDone) {
      this.#post({ omc: "cancel", reason: describe(error) });
      this.#failInput(error);
    }
    this.#release();
  }

  close(): Promise<void> {
    if (!this.#outputDone) {
      // A write still waiting for credit has sent part of its chunk: say `abort`, not a clean `end`.
      if (this.#writing) this.#post({ omc: "abort", reason: "The connection was closed during a write" });
      else this.#post({ omc: "end" });
      this.#failOutput(new ClosedError("The MessagePort connection is closed"));
    }
    if (!this.#inputDone) {
      this.#post({ omc: "cancel", reason: "The peer closed the connection" });
      this.#finishInput();
      try {
        this.#readController.close();
      } catch {
        // already closed or errored
      }
    }
    this.#release();
    return Promise.resolve();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  // ---- port ----

  #listen(): void {
    const port = this.#port;
    const onMessage = (event: { data?: unknown }): void => this.#receive(event.data);
    if (typeof port.addEventListener === "function") {
      const onMessageError = (): void =>
        this.#violate(new ProtocolError("A message on the MessagePort could not be deserialized (messageerror)"));
      const onClose = (): void => this.#onPortClosed();
      this.#listeners.push(["message", onMessage], ["messageerror", onMessageError], ["close", onClose]);
      for (const [type, listener] of this.#listeners) port.addEventListener(type, listener);
      port.start?.();
    } else {
      port.onmessage = onMessage;
    }
  }

  #post(message: Wire, transfer: ArrayBuffer[] = []): void {
    if (this.#portClosed) return;
    this.#port.postMessage(message, transfer);
  }

  #maybeRelease(): void {
    if (this.#inputDone && this.#outputDone) this.#release();
  }

  #release(): void {
    this.#closed.resolve();
    if (this.#portClosed) return;
    this.#portClosed = true;
    const port = this.#port;
    if (typeof port.removeEventListener === "function") {
      for (const [type, listener] of this.#listeners) port.removeEventListener(type, listener);
    } else if (!this.#listeners.length && port.onmessage) {
      port.onmessage = null;
    }
    if (this.#closePort) {
      try {
        port.close?.();
      } catch {
        // already closed
      }
    }
  }

  #onPortClosed(): void {
    if (this.#portClosed) return;
    const error = new ClosedError("The MessagePort closed before end-of-stream");
    // After `end`, the data before it is still delivered: the peer closed its port once it was done.
    if (!this.#inputDone && !this.#inputEnded) {
      this.#closeError ??= error;
      this.#failInput(error);
    }
    if (!this.#outputDone) this.#failOutput(new ClosedError("The MessagePort closed: nothing more can be sent"));
    this.#release();
  }

  #receive(data: unknown): void {
    if (typeof data !== "object" || data === null) return;
    const message = data as Partial<Record<string, unknown>>;
    switch (message.omc) {
      case "data":
        return this.#receiveData(message.bytes);
      case "end":
        if (this.#inputDone) return;
        this.#inputEnded = true;
        return this.#wakeReader();
      case "abort": {
        if (this.#inputDone) return;
        const error = new ClosedError(`The MessagePort peer aborted its output: ${String(message.reason)}`);
        this.#closeError ??= error;
        this.#failInput(error);
        return this.#maybeRelease();
      }
      case "credit": {
        const bytes = message.bytes;
        if (typeof bytes !== "number" || !Number.isSafeInteger(bytes) || bytes <= 0) {
          return this.#violate(new ProtocolError(`Invalid credit from the MessagePort peer: ${String(bytes)}`));
        }
        if (!this.#outputDone) this.#sendCredit.grant(bytes);
        return;
      }
      case "cancel":
        if (this.#outputDone) return;
        this.#failOutput(new ClosedError(`The MessagePort peer stopped reading: ${String(message.reason)}`));
        return this.#maybeRelease();
    }
  }

  #violate(error: ProtocolError): void {
    this.#closeError ??= error;
    this.destroy(error);
  }

  // ---- input ----

  #receiveData(bytes: unknown): void {
    if (this.#inputDone) return; // cancelled: the peer learns it from `cancel`
    if (!(bytes instanceof ArrayBuffer)) {
      return this.#violate(new ProtocolError("A data message from the MessagePort peer carried no ArrayBuffer"));
    }
    if (this.#inputEnded) return this.#violate(new ProtocolError("The MessagePort peer sent data after end-of-stream"));
    const credit = this.#receiveCredit.outstanding;
    if (!this.#receiveCredit.accept(bytes.byteLength)) {
      return this.#violate(new ProtocolError(`The MessagePort peer sent ${bytes.byteLength} bytes with only ${credit} bytes of credit`));
    }
    if (bytes.byteLength === 0) return;
    this.#receivedBytes += bytes.byteLength;
    this.#inbox.push(new Uint8Array(bytes));
    this.#inboxBytes += bytes.byteLength;
    this.#wakeReader();
  }

  #wakeReader(): void {
    const waiting = this.#arrival;
    this.#arrival = undefined;
    waiting?.resolve();
  }

  async #pull(): Promise<void> {
    for (;;) {
      if (this.#inputDone) return;
      const chunk = this.#inbox.shift();
      if (chunk) {
        this.#inboxBytes -= chunk.byteLength;
        this.#readController.enqueue(chunk);
        const back = this.#receiveCredit.consumed(chunk.byteLength);
        if (back > 0) this.#post({ omc: "credit", bytes: back });
        return;
      }
      if (this.#inputEnded) {
        this.#finishInput();
        this.#readController.close();
        return this.#maybeRelease();
      }
      this.#arrival ??= deferred();
      await this.#arrival.promise;
    }
  }

  #cancelInput(reason: unknown): void {
    if (this.#inputDone) return;
    this.#post({ omc: "cancel", reason: describe(reason ?? "The reader cancelled") });
    this.#finishInput();
    this.#maybeRelease();
  }

  #finishInput(): void {
    this.#inputDone = true;
    this.#inbox = [];
    this.#inboxBytes = 0;
    this.#wakeReader();
  }

  #failInput(error: Error): void {
    this.#finishInput();
    try {
      this.#readController.error(error);
    } catch {
      // already closed
    }
  }

  // ---- output ----

  async #write(chunk: Uint8Array, signal: AbortSignal): Promise<void> {
    if (!(chunk instanceof Uint8Array)) throw new TypeError("A MessagePort duplex writes Uint8Array chunks only");
    this.#writing = true;
    try {
      let at = 0;
      while (at < chunk.byteLength) {
        await this.#sendCredit.wait(signal);
        const n = this.#sendCredit.take(chunk.byteLength - at);
        const piece = at === 0 && n === chunk.byteLength ? chunk : chunk.subarray(at, at + n);
        at += n;
        this.#sendData(piece);
      }
    } finally {
      this.#writing = false;
    }
  }

  #sendData(piece: Uint8Array): void {
    if (this.#outputError) throw this.#outputError;
    const size = piece.byteLength; // read before a transfer detaches it
    const buffer = piece.buffer;
    const whole = this.#transfer && buffer instanceof ArrayBuffer && piece.byteOffset === 0 && size === buffer.byteLength;
    if (whole) {
      try {
        this.#post({ omc: "data", bytes: buffer }, [buffer]);
        this.#sentBytes += size;
        return;
      } catch {
        // not transferable here (a host-owned buffer): copy below
      }
    }
    const copy = new Uint8Array(piece).buffer; // one copy, into a buffer handed over without a second one
    this.#post({ omc: "data", bytes: copy }, [copy]);
    this.#copiedBytes += size;
    this.#sentBytes += size;
  }

  #endOutput(kind: "end" | "abort", reason?: unknown): void {
    if (this.#outputDone) return;
    this.#post(kind === "end" ? { omc: "end" } : { omc: "abort", reason: describe(reason ?? "The writer aborted") });
    this.#outputDone = true;
    this.#sendCredit.fail(new ClosedError("Output is closed"));
    this.#maybeRelease();
  }

  #failOutput(error: Error): void {
    if (this.#outputDone && this.#outputError) return;
    this.#outputDone = true;
    this.#outputError = error;
    try {
      this.#writeController.error(error);
    } catch {
      // already errored
    }
    this.#sendCredit.fail(error);
  }
}

function describe(reason: unknown): string {
  if (reason instanceof Error) return `${reason.name}: ${reason.message}`;
  return typeof reason === "string" ? reason : String(reason);
}
