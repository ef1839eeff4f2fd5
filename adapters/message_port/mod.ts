/// <reference lib="esnext.disposable" preserve="true" />
/**
 * `onemodelcontext/message-port`: a byte duplex over a `MessagePort` (a browser `MessageChannel`, a
 * Worker's port, Node `worker_threads`), with credit-based flow control so that the output bound of a
 * {@linkcode NewlineChannel} holds across the port, and explicit end-of-stream and abort signals.
 *
 * ## Wire
 *
 * The roles live in their own files: `wire.ts` (the message format), `port_reader.ts` (input, receive
 * window), `port_writer.ts` (output, send credit), `credit_window.ts` (the credit bookkeeping).
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
 * ```ts browser
 * declare const worker: Worker, server: ContextServer;
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
import { deferred } from "../../src/stream/deferred.ts";
import { ClosedError, InvalidOptionError, ProtocolError } from "../../src/wire/errors.ts";
import type { TransportConnection } from "../../src/rpc/transport.ts";
import { PortReader } from "./port_reader.ts";
import { PortWriter } from "./port_writer.ts";
import { readWire, type Wire } from "./wire.ts";

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
  readonly stats: {
    readonly sentBytes: number;
    readonly receivedBytes: number;
    readonly copiedBytes: number;
  };
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
export function fromMessagePort(
  port: MessagePortLike,
  options: FromMessagePortOptions = {},
): MessagePortConnection {
  return new MessagePortDuplex(port, options);
}

/** Wires a {@linkcode PortReader} and a {@linkcode PortWriter} to a port, and owns the port's lifetime. */
class MessagePortDuplex implements MessagePortConnection {
  readonly readable: ReadableStream<Uint8Array>;
  readonly writable: WritableStream<Uint8Array>;
  readonly receiveWindowBytes: number;
  readonly #port: MessagePortLike;
  readonly #closePort: boolean;
  readonly #reader: PortReader;
  readonly #writer: PortWriter;
  readonly #listeners: Array<[string, (event: { data?: unknown }) => void]> = [];
  #closed = deferred();
  #portClosed = false;
  #closeError: Error | undefined;

  constructor(port: MessagePortLike, options: FromMessagePortOptions) {
    const chunks = options.chunks ?? "copy";
    if (chunks !== "copy" && chunks !== "transfer") {
      throw new InvalidOptionError(
        `Option chunks must be "copy" or "transfer", got ${JSON.stringify(chunks)}`,
      );
    }
    const post = (message: Wire, transfer: ArrayBuffer[] = []): void => {
      if (!this.#portClosed) this.#port.postMessage(message, transfer);
    };
    const done = (): void => this.#maybeRelease();
    this.#reader = new PortReader(options.receiveWindowBytes ?? DEFAULT_RECEIVE_WINDOW_BYTES, post, {
      violate: (error) => this.#violate(error),
      done,
    });
    this.#writer = new PortWriter(post, { transfer: chunks === "transfer", onDone: done });
    this.readable = this.#reader.readable;
    this.writable = this.#writer.writable;
    this.receiveWindowBytes = this.#reader.windowBytes;
    this.#closePort = options.closePort ?? true;
    this.#port = port;
    this.#listen();
    this.#reader.open();
  }

  get bytesInTransit(): number {
    return this.#writer.bytesInTransit;
  }

  get maxBytesInTransit(): number {
    return this.#writer.maxBytesInTransit;
  }

  get bufferedInputBytes(): number {
    return this.#reader.bufferedBytes;
  }

  get stats(): { sentBytes: number; receivedBytes: number; copiedBytes: number } {
    return {
      sentBytes: this.#writer.sentBytes,
      receivedBytes: this.#reader.receivedBytes,
      copiedBytes: this.#writer.copiedBytes,
    };
  }

  get closed(): Promise<void> {
    return this.#closed.promise;
  }

  closeError(): Error | undefined {
    return this.#closeError;
  }

  destroy(reason?: unknown): void {
    const error = reason instanceof Error
      ? reason
      : new ClosedError("The MessagePort connection was destroyed", { cause: reason });
    this.#writer.destroy(error);
    this.#reader.destroy(error);
    this.#release();
  }

  close(): Promise<void> {
    this.#writer.stop();
    this.#reader.stop();
    this.#release();
    return Promise.resolve();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #listen(): void {
    const port = this.#port;
    const onMessage = (event: { data?: unknown }): void => this.#receive(event.data);
    if (typeof port.addEventListener === "function") {
      const onMessageError = (): void =>
        this.#violate(
          new ProtocolError("A message on the MessagePort could not be deserialized (messageerror)"),
        );
      const onClose = (): void => this.#onPortClosed();
      this.#listeners.push(["message", onMessage], ["messageerror", onMessageError], ["close", onClose]);
      for (const [type, listener] of this.#listeners) port.addEventListener(type, listener);
      port.start?.();
    } else {
      port.onmessage = onMessage;
    }
  }

  #maybeRelease(): void {
    if (this.#reader.done && this.#writer.done) this.#release();
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
    if (!this.#closePort) return;
    try {
      port.close?.();
    } catch {
      // The host closed the port already (its Worker ended): releasing it is done.
    }
  }

  #onPortClosed(): void {
    if (this.#portClosed) return;
    // After `end`, the data before it is still delivered: the peer closed its port once it was done.
    if (!this.#reader.done && !this.#reader.ended) {
      const error = new ClosedError("The MessagePort closed before end-of-stream");
      this.#closeError ??= error;
      this.#reader.fail(error);
    }
    if (!this.#writer.done) {
      this.#writer.fail(new ClosedError("The MessagePort closed: nothing more can be sent"));
    }
    this.#release();
  }

  #receive(data: unknown): void {
    const message = readWire(data);
    switch (message?.omc) {
      case "data":
        return this.#reader.receiveData(message.bytes);
      case "end":
        return this.#reader.receiveEnd();
      case "abort": {
        if (this.#reader.done) return;
        const error = new ClosedError(`The MessagePort peer aborted its output: ${String(message.reason)}`);
        this.#closeError ??= error;
        this.#reader.fail(error);
        return this.#maybeRelease();
      }
      case "credit": {
        const bytes = message.bytes;
        if (typeof bytes !== "number" || !Number.isSafeInteger(bytes) || bytes <= 0) {
          return this.#violate(
            new ProtocolError(`Invalid credit from the MessagePort peer: ${String(bytes)}`),
          );
        }
        return this.#writer.grant(bytes);
      }
      case "cancel":
        if (this.#writer.done) return;
        this.#writer.fail(new ClosedError(`The MessagePort peer stopped reading: ${String(message.reason)}`));
        return this.#maybeRelease();
    }
  }

  #violate(error: ProtocolError): void {
    this.#closeError ??= error;
    this.destroy(error);
  }
}
