/**
 * `ElicitParams`: what `ctx.elicit` takes, in both eras: a form, or a URL to open (URL mode, with the
 * legacy era's `elicitationId`).
 * @module
 */
import type { ElicitRequestFormParams, ElicitRequestURLParams } from "../../wire/protocol/v2026_07_28.ts";

/**
 * A URL-mode elicitation (2025-11-25 and 2026-07-28): the user is sent to `url`, out of band, and
 * the answer only says whether they agreed to go.
 *
 * @example
 * ```ts ignore
 * await ctx.elicit({ mode: "url", message: "Sign in", url: "https://auth.example/start", elicitationId: "e1" });
 * ```
 */
export interface ElicitUrlParams extends ElicitRequestURLParams {
  /**
   * Legacy era (2025-11-25, where it is required): an id unique within this server, which the client
   * keeps so the server can report the interaction done with `ctx.elicitationComplete(elicitationId)`.
   * The modern era (2026-07-28) has no such id: a client there ignores it.
   */
  elicitationId?: string;
}

/** The params of `ctx.elicit`: a form (`mode` `"form"` or absent) or a URL ({@linkcode ElicitUrlParams}). */
export type ElicitParams = ElicitRequestFormParams | ElicitUrlParams;
