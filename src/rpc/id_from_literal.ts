/**
 * The request id an unparsed head's id literal stands for.
 * @module
 */
import { MAX_ID_LENGTH, type RequestId } from "../wire/json_rpc_message.ts";

/** The id a head's literal stands for; `undefined` when absent or not a usable id. */
export function idFromLiteral(literal: string | undefined): RequestId | undefined {
  if (literal === undefined || literal.length > MAX_ID_LENGTH) return undefined;
  try {
    const id: unknown = JSON.parse(literal);
    return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : undefined;
  } catch {
    return undefined;
  }
}
