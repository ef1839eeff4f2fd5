/**
 * An official-SDK `Transport` (start/send/close, onmessage/onclose/onerror) over one side of an
 * in-memory duplex pair, newline-delimited JSON as on stdio: runs SDK clients and servers in-process
 * against ours, without building dist/ or spawning processes.
 */
import type { Duplex } from "../../src/stream/duplex.ts";

export class SdkDuplexTransport {
  onmessage?: (message: unknown, extra?: unknown) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  sessionId?: string;
  readonly #duplex: Duplex;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #encoder = new TextEncoder();
  #closed = false;

  constructor(duplex: Duplex) {
    this.#duplex = duplex;
    this.#writer = duplex.writable.getWriter();
  }

  async start(): Promise<void> {
    void this.#readLoop();
  }

  async #readLoop(): Promise<void> {
    const reader = this.#duplex.readable.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let newline: number;
        while ((newline = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, newline).replace(/\r$/, "");
          buffer = buffer.slice(newline + 1);
          if (line.trim() === "") continue;
          this.onmessage?.(JSON.parse(line));
        }
      }
    } catch (error) {
      this.onerror?.(error as Error);
    }
    this.#finish();
  }

  async send(message: unknown): Promise<void> {
    if (this.#closed) throw new Error("SdkDuplexTransport is closed");
    await this.#writer.write(this.#encoder.encode(JSON.stringify(message) + "\n"));
  }

  async close(): Promise<void> {
    if (!this.#closed) await this.#writer.close().catch(() => {}); // already closed by the peer: nothing to do
    this.#finish();
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }
}
