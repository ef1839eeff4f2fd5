/**
 * The {@linkcode OutboundGuard} of an `OAuthClient`'s options.
 * @module
 */
import type { FetchLike } from "./fetch_like.ts";
import { OutboundGuard, type OutboundGuardOptions } from "./outbound_guard.ts";

/** The guard over `options.fetch` (default the global `fetch`) that `OAuthClient` sends everything through. */
export function outboundGuardFor(options: {
  fetch?: FetchLike;
  allowInsecureRequests?: boolean | "loopback";
  outbound?: OutboundGuardOptions;
}): OutboundGuard {
  const inner: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  // Plain HTTP beyond loopback only when the caller said so for every host.
  return new OutboundGuard(inner, () => options.allowInsecureRequests === true, options.outbound);
}
