/**
 * `onemodelcontext/message-port`: a byte duplex over a `MessagePort` (a browser `MessageChannel`, a
 * Worker's port, Node `worker_threads`), with credit-based flow control so that the output bound of a
 * {@linkcode NewlineChannel} holds across the port, and explicit end-of-stream and abort signals.
 *
 * ## Wire
 *
 * The roles live in their own files: `_wire.ts` (the message format), `_port_reader.ts` (input, receive
 * window), `_port_writer.ts` (output, send credit), `_credit_window.ts` (the credit bookkeeping).
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
export {
  DEFAULT_RECEIVE_WINDOW_BYTES,
  fromMessagePort,
  type FromMessagePortOptions,
  type MessagePortConnection,
  type MessagePortLike,
} from "./_from_message_port.ts";
