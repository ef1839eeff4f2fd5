/**
 * Reads and writes the `Bearer` challenge of a `WWW-Authenticate` header (RFC 6750 §3, RFC 9728 §5.1).
 * @module
 */

/** The parameters of a `Bearer` challenge the MCP authorization flow uses. */
export interface BearerChallenge {
  /** The Protected Resource Metadata URL (RFC 9728 §5.1). */
  resourceMetadata?: string;
  /** The scopes the request needs, space-separated. */
  scope?: string;
  /** `invalid_token`, `insufficient_scope`, … */
  error?: string;
  errorDescription?: string;
  /** Every parameter, names lower-cased. */
  params: Record<string, string>;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+/;
const PARAM =
  /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+)\s*=\s*("((?:[^"\\]|\\.)*)"|[!#$%&'*+\-.^_`|~0-9A-Za-z]+)\s*(?:,|$)/;
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*\s*(?:,|$)/;

/**
 * Parses a `WWW-Authenticate` value (possibly several challenges, comma-separated) and returns the
 * `Bearer` challenge (scheme compared case-insensitively), or undefined when there is none.
 * Quoted strings may hold commas and backslash escapes.
 *
 * @example
 * ```ts
 * parseBearerChallenge('Bearer resource_metadata="https://x/.well-known/oauth-protected-resource", scope="a b"')
 * // { resourceMetadata: "https://x/…", scope: "a b", params: { … } }
 * ```
 */
export function parseBearerChallenge(header: string | null | undefined): BearerChallenge | undefined {
  return parseSchemeChallenge(header, "bearer");
}

/**
 * Like {@linkcode parseBearerChallenge}, for the `DPoP` challenge (RFC 9449 §7.1): its `error` may be
 * `use_dpop_nonce` or `invalid_dpop_proof`, and it may carry `algs`.
 */
export function parseDPoPChallenge(header: string | null | undefined): BearerChallenge | undefined {
  return parseSchemeChallenge(header, "dpop");
}

function parseSchemeChallenge(
  header: string | null | undefined,
  scheme: string,
): BearerChallenge | undefined {
  if (!header) return undefined;
  for (const challenge of parseChallenges(header)) {
    if (challenge.scheme.toLowerCase() !== scheme) continue;
    const params = challenge.params;
    const result: BearerChallenge = { params };
    if (params.resource_metadata !== undefined) result.resourceMetadata = params.resource_metadata;
    if (params.scope !== undefined) result.scope = params.scope;
    if (params.error !== undefined) result.error = params.error;
    if (params.error_description !== undefined) result.errorDescription = params.error_description;
    return result;
  }
  return undefined;
}

interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

function parseChallenges(header: string): Challenge[] {
  const challenges: Challenge[] = [];
  let current: Challenge | undefined;
  let rest = header.replace(/^[\s,]+/, "");
  while (rest.length > 0) {
    const param = current === undefined ? null : PARAM.exec(rest);
    if (param !== null && current !== undefined) {
      const raw = param[2] as string;
      const value = raw.startsWith('"') ? (param[3] as string).replace(/\\(.)/g, "$1") : raw;
      current.params[(param[1] as string).toLowerCase()] = value;
      rest = rest.slice(param[0].length).replace(/^[\s,]+/, "");
      continue;
    }
    const scheme = TOKEN.exec(rest);
    if (scheme === null) break; // malformed: keep what was read
    current = { scheme: scheme[0], params: {} };
    challenges.push(current);
    rest = rest.slice(scheme[0].length);
    if (!/^\s/.test(rest)) {
      rest = rest.replace(/^[\s,]+/, "");
      continue;
    }
    rest = rest.replace(/^\s+/, "");
    if (PARAM.exec(rest) === null) {
      const token68 = TOKEN68.exec(rest);
      if (token68 !== null) {
        current.params[""] = token68[0].replace(/[\s,]+$/, "");
        rest = rest.slice(token68[0].length);
      }
    }
    rest = rest.replace(/^[\s,]+/, "");
  }
  return challenges;
}

/** What {@linkcode formatBearerChallenge} writes. */
export interface BearerChallengeParams {
  /** The scheme; default `Bearer`. `DPoP` for RFC 9449 §7.1 challenges. */
  scheme?: "Bearer" | "DPoP";
  /** `DPoP` only: the proof algorithms accepted, space-separated. */
  algs?: string;
  resourceMetadata?: string;
  scope?: string;
  error?: string;
  errorDescription?: string;
}

/**
 * Writes a `Bearer` challenge: `Bearer error="…", scope="…", resource_metadata="…"`. Quotes and
 * backslashes in values are escaped.
 */
export function formatBearerChallenge(params: BearerChallengeParams): string {
  const parts: string[] = [];
  const add = (name: string, value: string | undefined): void => {
    if (value !== undefined) parts.push(`${name}="${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`);
  };
  add("error", params.error);
  add("error_description", params.errorDescription);
  add("scope", params.scope);
  add("resource_metadata", params.resourceMetadata);
  add("algs", params.algs);
  const scheme = params.scheme ?? "Bearer";
  return parts.length === 0 ? scheme : `${scheme} ${parts.join(", ")}`;
}
