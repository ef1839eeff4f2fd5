/**
 * What a server may ask a client, and what a client's answer must look like: the capability rules
 * of `elicitation/create`, `sampling/createMessage` and `roots/list` (both eras), and shape checks of
 * their results. Shared by the input-round engine of both eras.
 * @module
 */
import { ErrorCodes, JsonRpcError } from "../../wire/errors.ts";
import { isPlainObject } from "../../wire/meta_envelope.ts";
import type { Capabilities } from "../../wire/protocol_versions.ts";

/** The three requests a server may put to a client. */
export type InputMethod = "elicitation/create" | "sampling/createMessage" | "roots/list";

/** The only client requests that may answer `input_required` (and so the only ones whose handlers may ask). */
export const INPUT_REQUIRED_METHODS: readonly string[] = ["tools/call", "prompts/get", "resources/read"];

/** True for a method that may answer `input_required`. */
export function acceptsInputRequests(method: string): boolean {
  return INPUT_REQUIRED_METHODS.includes(method);
}

/**
 * The capabilities a client must have declared for `method` with `params`, or `undefined` when it
 * declared them. Elicitation: `elicitation` (an empty object means form only), `elicitation.url` for
 * `mode: "url"`. Sampling: `sampling`, `sampling.tools` when `tools` or `toolChoice` is set,
 * `sampling.context` when `includeContext` is `thisServer` or `allServers`. Roots: `roots`.
 */
export function missingCapabilities(
  method: InputMethod,
  params: unknown,
  capabilities: Capabilities,
): Capabilities | undefined {
  const p = isPlainObject(params) ? params : {};
  switch (method) {
    case "elicitation/create": {
      const mode = p.mode === "url" ? "url" : "form";
      return supportsElicitation(capabilities, mode) ? undefined : { elicitation: { [mode]: {} } };
    }
    case "sampling/createMessage": {
      const sampling = capabilities.sampling;
      if (!isPlainObject(sampling)) {
        const needed: Record<string, unknown> = {};
        if (p.tools !== undefined || p.toolChoice !== undefined) needed.tools = {};
        if (p.includeContext === "thisServer" || p.includeContext === "allServers") needed.context = {};
        return { sampling: needed };
      }
      if ((p.tools !== undefined || p.toolChoice !== undefined) && !isPlainObject(sampling.tools)) {
        return { sampling: { tools: {} } };
      }
      if (
        (p.includeContext === "thisServer" || p.includeContext === "allServers") &&
        !isPlainObject(sampling.context)
      ) {
        return { sampling: { context: {} } };
      }
      return undefined;
    }
    case "roots/list":
      return isPlainObject(capabilities.roots) ? undefined : { roots: {} };
  }
}

/** True when `capabilities` declare elicitation in `mode` (`{}` counts as form only, as the 2025-11-25 spec says). */
export function supportsElicitation(capabilities: Capabilities, mode: "form" | "url" = "form"): boolean {
  const elicitation = capabilities.elicitation;
  if (!isPlainObject(elicitation)) return false;
  if (mode === "url") return elicitation.url !== undefined && elicitation.url !== null;
  return (elicitation.form !== undefined && elicitation.form !== null) || elicitation.url === undefined;
}

/** -32021 with `data.requiredCapabilities`, naming what `method` needed. */
export function missingCapabilityError(method: InputMethod, required: Capabilities): JsonRpcError {
  return new JsonRpcError(
    ErrorCodes.MissingRequiredClientCapability,
    `Missing required client capability: ${method} needs ${
      JSON.stringify(required)
    }, which this request's client capabilities do not declare`,
    { requiredCapabilities: required },
  );
}

/**
 * `undefined` when `value` has the shape of `method`'s result, else a phrase saying what is wrong.
 * Elicitation: `action` accept/decline/cancel, `content` an object when present. Sampling: `role`,
 * `content` (an object or an array of objects), `model` a string. Roots: `roots` an array of objects
 * with a string `uri`.
 */
export function invalidAnswer(method: InputMethod, value: unknown): string | undefined {
  if (!isPlainObject(value)) return `expected an object, got ${describe(value)}`;
  switch (method) {
    case "elicitation/create":
      if (value.action !== "accept" && value.action !== "decline" && value.action !== "cancel") {
        return `expected action "accept", "decline" or "cancel", got ${describe(value.action)}`;
      }
      if (value.content !== undefined && !isPlainObject(value.content)) {
        return `expected content to be an object, got ${describe(value.content)}`;
      }
      return undefined;
    case "sampling/createMessage":
      if (value.role !== "assistant" && value.role !== "user") {
        return `expected role "assistant" or "user", got ${describe(value.role)}`;
      }
      if (
        !isPlainObject(value.content) && !(Array.isArray(value.content) && value.content.every(isPlainObject))
      ) {
        return `expected content to be a content block or an array of them, got ${describe(value.content)}`;
      }
      if (typeof value.model !== "string") {
        return `expected model to be a string, got ${describe(value.model)}`;
      }
      return undefined;
    case "roots/list":
      if (!Array.isArray(value.roots)) return `expected roots to be an array, got ${describe(value.roots)}`;
      if (!value.roots.every((root) => isPlainObject(root) && typeof root.uri === "string")) {
        return "expected every root to be an object with a string uri";
      }
      return undefined;
  }
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return JSON.stringify(value.slice(0, 40));
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return typeof value;
}
