/**
 * The modern envelope as pre-serialised JSON text. The request envelope is the same for every request
 * of a connection, and so is the `_meta.serverInfo` of every result: each is stringified once and
 * spliced into the JSON of the params or result, instead of copying objects and stringifying the
 * envelope again per message. The text parses to exactly what the object builders in
 * `meta_envelope.ts` give; where splicing cannot promise that (a `_meta` of the caller's own, a
 * `toJSON`, a result that is not a plain object), these return `undefined` and the caller builds the
 * object.
 * @module
 */
import { CACHEABLE_RESULT_METHODS, isPlainObject, type RequestEnvelope } from "./meta_envelope.ts";
import { buildRequestMeta } from "./meta_envelope.ts";
import { type Implementation, MetaKeys } from "./protocol_versions.ts";

/** The members of a request's `_meta` envelope as JSON text, without the braces. */
export function envelopeMembersText(envelope: RequestEnvelope): string {
  return JSON.stringify(buildRequestMeta(envelope)).slice(1, -1);
}

/**
 * The JSON text of `withRequestEnvelope(params, envelope)`, given the envelope's members text
 * ({@linkcode envelopeMembersText}), when `params` is nothing or a plain object without `_meta` and
 * without `toJSON`; else `undefined`. Throws what `JSON.stringify` throws (a BigInt, a cycle).
 */
export function paramsTextWithEnvelope(params: unknown, members: string): string | undefined {
  if (params === undefined) return `{"_meta":{${members}}}`;
  if (!isPlainObject(params) || params._meta !== undefined || "toJSON" in params) return undefined;
  return spliceMembers(JSON.stringify(params), `"_meta":{${members}}`);
}

/** The members `decorateModernResult` adds to a result that has none of its own, as JSON text. */
export function serverInfoMembersText(serverInfo: Implementation): string {
  return `"resultType":"complete","_meta":${JSON.stringify({ [MetaKeys.serverInfo]: serverInfo })}`;
}

/**
 * The JSON text of `decorateModernResult(result, serverInfo, method)`, given
 * {@linkcode serverInfoMembersText}, when the result is nothing or a plain object with neither
 * `resultType` nor `_meta` nor `toJSON`, for a method whose result is not cacheable; else
 * `undefined` (also when `JSON.stringify` throws: the object path reports that).
 */
export function decoratedResultText(result: unknown, members: string, method: string): string | undefined {
  if (CACHEABLE_RESULT_METHODS.includes(method)) return undefined;
  if (result === undefined || result === null) return `{${members}}`;
  if (
    !isPlainObject(result) || result.resultType !== undefined || result._meta !== undefined ||
    "toJSON" in result
  ) return undefined;
  let text: string;
  try {
    text = JSON.stringify(result);
  } catch {
    return undefined;
  }
  return spliceMembers(text, members);
}

/** `members` added at the end of the JSON object `text`. */
function spliceMembers(text: string, members: string): string {
  return text.length === 2 ? `{${members}}` : `${text.slice(0, -1)},${members}}`;
}
