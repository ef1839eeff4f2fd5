/**
 * `InFlightRequests`: the requests a served handler is working on, from the call until the response
 * body has been sent, so a graceful shutdown can wait for them and end what outlives its bound.
 * @module
 */
import type { FetchHandler } from "./serve_options.ts";
import { sleep } from "./serve_options.ts";

interface Entry {
  /** When the request came (performance.now()), or -Infinity when it came before the drain began (its bound counts from the drain). */
  readonly start: number;
  /** Ends the response body now (it errors for the client). */
  end(reason: Error): void;
}

/** One request counted by {@linkcode InFlightRequests.track}. */
export interface TrackedRequest {
  /** Called once if a drain ends the request before {@linkcode TrackedRequest.finish}: end the response with `reason`. */
  onEnd: ((reason: Error) => void) | undefined;
  /** True once finished or ended. */
  readonly ended: boolean;
  /** The response ended (sent whole, cancelled, or failed): stop counting it. Idempotent. */
  finish(): void;
}

/** One counted request: its entry in the set and the caller's handle (a class: no closures per request). */
class Tracked implements Entry, TrackedRequest {
  readonly start: number;
  onEnd: ((reason: Error) => void) | undefined = undefined;
  readonly #entries: Set<Entry>;
  readonly #idle: () => void;
  #ended = false;

  constructor(entries: Set<Entry>, idle: () => void, start: number) {
    this.#entries = entries;
    this.#idle = idle;
    this.start = start;
  }

  get ended(): boolean {
    return this.#ended;
  }

  finish(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#entries.delete(this);
    if (this.#entries.size === 0) this.#idle();
  }

  end(reason: Error): void {
    if (this.#ended) return;
    this.finish();
    this.onEnd?.(reason);
  }
}

/**
 * Counts requests until their response body ended (read to the end, cancelled by the client, or
 * ended by {@linkcode InFlightRequests.drain}): an adapter that writes responses itself calls
 * {@linkcode InFlightRequests.track}; {@linkcode InFlightRequests.wrap} wraps a handler instead, its
 * body pulling from the original one chunk per read, so backpressure passes through unchanged.
 */
export class InFlightRequests {
  #arrived = 0;
  readonly #entries = new Set<Entry>();
  #onIdle: (() => void) | undefined;
  readonly #idle = (): void => this.#onIdle?.();
  #draining = false;

  /** Requests whose response has not ended. */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * Counts one request from now until {@linkcode TrackedRequest.finish}. When a drain ends it first,
   * its `onEnd` (set by whoever writes the response) is called once with the reason.
   */
  /** Requests tracked so far, ever: what `serve()` on Deno and Bun watches before it stops listening. */
  get arrived(): number {
    return this.#arrived;
  }

  track(): TrackedRequest {
    this.#arrived++;
    // Only a request arriving during a drain needs its arrival time: an earlier one's bound counts from the drain.
    const tracked = new Tracked(
      this.#entries,
      this.#idle,
      this.#draining ? performance.now() : Number.NEGATIVE_INFINITY,
    );
    this.#entries.add(tracked);
    return tracked;
  }

  /** `handler`, counting each request until its response ended. */
  wrap(handler: FetchHandler): (request: Request) => Promise<Response> {
    return async (request) => {
      const tracked = this.track();
      let response: Response;
      try {
        response = await handler(request);
      } catch (error) {
        tracked.finish();
        throw error;
      }
      if (response.body === null || tracked.ended) {
        tracked.finish();
        return response;
      }
      const reader = response.body.getReader();
      let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
      tracked.onEnd = (reason) => {
        void reader.cancel(reason).catch(() => {}); // the handler side sees the cancel; the client sees the error below
        try {
          controller?.error(reason);
        } catch {
          // already closed: nothing left to end
        }
      };
      const body = new ReadableStream<Uint8Array>(
        {
          start: (c) => {
            controller = c;
          },
          pull: async (c) => {
            try {
              const { done, value } = await reader.read();
              if (done) {
                tracked.finish();
                c.close();
              } else {
                c.enqueue(value);
              }
            } catch (error) {
              tracked.finish();
              c.error(error);
            }
          },
          cancel: async (reason) => {
            tracked.finish();
            await reader.cancel(reason);
          },
        },
        { highWaterMark: 0 },
      );
      return new Response(body, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    };
  }

  /**
   * Resolves once no request is in flight. Each request gets `timeoutMs` from when the drain began, or
   * from its own arrival when it came later (a request still arriving on an open connection during a
   * shutdown is served as fully as the others); one that outlives it is ended with `reason`.
   */
  async drain(timeoutMs: number, reason: Error): Promise<void> {
    const began = performance.now();
    this.#draining = true;
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
