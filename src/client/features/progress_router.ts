/**
 * `ProgressRouter`: mints a progress token per request and routes `notifications/progress` to the
 * request that owns the token.
 * @module
 */
import { isPlainObject } from "../../wire/meta_envelope.ts";
import type { ProgressUpdate } from "./feature_types.ts";

/**
 * Tokens are `"<prefix>-<n>"`, unique among this client's requests. Notifications for unknown tokens
 * (a finished request, or a token someone else minted) are ignored; malformed ones are reported.
 *
 * @example
 * ```ts
 * const router = new ProgressRouter((error) => console.error(error));
 * const { token, release } = router.register((update) => console.log(update.progress));
 * // send the request with _meta.progressToken = token, then release() when it settles
 * ```
 */
export class ProgressRouter {
  readonly #routes = new Map<string | number, (update: ProgressUpdate) => void>();
  readonly #report: (error: Error) => void;
  #next = 0;

  constructor(report: (error: Error) => void) {
    this.#report = report;
  }

  /** How many requests wait for progress. */
  get size(): number {
    return this.#routes.size;
  }

  /** A fresh token routed to `onUpdate` until `release()`. */
  register(onUpdate: (update: ProgressUpdate) => void): { token: string; release: () => void } {
    const token = `omc-progress-${++this.#next}`;
    this.#routes.set(token, onUpdate);
    return { token, release: () => this.#routes.delete(token) };
  }

  /** Hands one `notifications/progress` to its request. */
  dispatch(params: unknown): void {
    if (!isPlainObject(params)) return;
    const route = this.#routes.get(params.progressToken as string);
    if (!route) return;
    const { progress, total, message } = params;
    if (typeof progress !== "number" || !Number.isFinite(progress)) {
      this.#report(
        new Error(
          `Progress notification for ${
            JSON.stringify(params.progressToken)
          } has a progress that is not a number: ${JSON.stringify(progress)}`,
        ),
      );
      return;
    }
    const update: { progress: number; total?: number; message?: string } = { progress };
    if (typeof total === "number") update.total = total;
    if (typeof message === "string") update.message = message;
    route(update);
  }
}
