/**
 * `InFlightRequests`: the requests a served handler is working on, from the call until the response
 * body has been sent, so a graceful shutdown can wait for them and end what outlives its bound.
 * @module
 */
import type { FetchHandler } from "./serve_options.ts";
import { sleep } from "./serve_options.ts";

interface Entry {
  /** When the request came (performance.now()). */
  readonly start: number;
  /** Ends the response body now (it errors for the client). */
  end(reason: Error): void;
}

/**
 * Wraps a handler so that every request is counted until its response body ended (read to the end,
 * cancelled by the client, or ended by {@linkcode InFlightRequests.drain}). The wrapped body pulls
 * from the original one chunk per read, so backpressure passes through unchanged.
 */
export class InFlightRequests {
  readonly #entries = new Set<Entry>();
  #onIdle: (() => void) | undefined;

  /** Requests whose response has not ended. */
  get size(): number {
    return this.#entries.size;
  }

  /** `handler`, counting each request until its response ended. */
  wrap(handler: FetchHandler): (request: Request) => Promise<Response> {
    return async (request) => {
      let ended = false;
      let source: ReadableStreamDefaultReader<Uint8Array> | undefined;
      let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
      const entry: Entry = {
        start: performance.now(),
        end: (reason) => {
          if (ended) return;
          finish();
          void source?.cancel(reason).catch(() => {}); // the handler side sees the cancel; the client sees the error below
          try {
            controller?.error(reason);
          } catch {
            // already closed: nothing left to end
          }
        },
      };
      const finish = (): void => {
        if (ended) return;
        ended = true;
        this.#entries.delete(entry);
        if (this.#entries.size === 0) this.#onIdle?.();
      };
      this.#entries.add(entry);
      let response: Response;
      try {
        response = await handler(request);
      } catch (error) {
        finish();
        throw error;
      }
      if (response.body === null || ended) {
        finish();
        return response;
      }
      source = response.body.getReader();
      const reader = source;
      const body = new ReadableStream<Uint8Array>(
        {
          start: (c) => {
            controller = c;
          },
          pull: async (c) => {
            try {
              const { done, value } = await reader.read();
              if (done) {
                finish();
                c.close();
              } else {
                c.enqueue(value);
              }
            } catch (error) {
              finish();
              c.error(error);
            }
          },
          cancel: async (reason) => {
            finish();
            await reader.cancel(reason);
          },
        },
        { highWaterMark: 0 },
      );
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    };
  }

  /**
   * Resolves once no request is in flight. Each request gets `timeoutMs` from when the drain began, or
   * from its own arrival when it came later (a request still arriving on an open connection during a
   * shutdown is served as fully as the others); one that outlives it is ended with `reason`.
   */
  async drain(timeoutMs: number, reason: Error): Promise<void> {
    const began = performance.now();
    while (this.#entries.size > 0) {
      const deadlineOf = (entry: Entry): number => Math.max(entry.start, began) + timeoutMs;
      const now = performance.now();
      for (const entry of [...this.#entries]) if (deadlineOf(entry) <= now) entry.end(reason);
      if (this.#entries.size === 0) break;
      const next = Math.min(...[...this.#entries].map(deadlineOf));
      const timer = sleep(Math.max(0, next - now));
      const idle = new Promise<void>((resolve) => (this.#onIdle = resolve));
      await Promise.race([idle, timer.promise]);
      timer.cancel();
      this.#onIdle = undefined;
    }
  }
}
