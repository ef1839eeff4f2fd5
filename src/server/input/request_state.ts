/**
 * `RequestStateCodec`: the modern era's `requestState`, made safe to hand to a client. The state is
 * signed (HMAC-SHA-256 through WebCrypto), not encrypted: the client can read it, so never put a
 * secret in it.
 *
 * Format: `base64url(body) "." base64url(tag)`, where `tag = HMAC(key, "omc-request-state-v1." + base64url(body))`
 * and `body` is the JSON `{"v":1,"m":method,"d":paramsDigest,"u"?:principalDigest,"e":expiresAtEpochMs,"p":payload}`.
 * `paramsDigest` is SHA-256 over the canonical JSON (sorted keys) of the request's params without
 * `inputResponses`, `requestState` and `_meta`, so a state only opens on a retry of the request it was
 * sealed for.
 *
 * Every replica of a deployment must share the key (option `key`); without one, each codec draws a
 * random key, so state opens only in the process that sealed it (a restart or another replica
 * answers `tampered`).
 * @module
 */
import { InvalidOptionError } from "../../wire/errors.ts";
import { isPlainObject } from "../../wire/meta_envelope.ts";
import { integerOption, numberOption } from "../../stream/options.ts";
import { systemTimeProvider, type TimeProvider } from "../../stream/time_provider.ts";
import { RequestStateError } from "./request_state_error.ts";

/** Options of {@linkcode RequestStateCodec}. */
export interface RequestStateCodecOptions {
  /**
   * The HMAC key: at least 32 raw bytes, or exactly 64 hex characters. Give every replica the same
   * key. Default: 32 random bytes drawn once per codec (state then opens only in this process).
   * @default 32 random bytes drawn once per codec
   */
  key?: Uint8Array | ArrayBuffer | string;
  /**
   * How long a sealed state stays valid, in milliseconds. Default 600 000 (10 minutes).
   * @default 600000 (10 minutes)
   */
  stateTtl?: number;
  /**
   * The clock of expiry. Default: the system clock.
   * @default the system clock
   */
  timeProvider?: TimeProvider;
  /**
   * Added to `timeProvider.now()` to get milliseconds since the Unix epoch, so replicas agree on
   * expiry. Default `performance.timeOrigin` (right for the system clock; tests may pass 0).
   * @default performance.timeOrigin
   */
  epochOrigin?: number;
  /**
   * Longest `requestState` string accepted or produced, in characters. Default 65 536.
   * @default 65536
   */
  maxStateBytes?: number;
  /**
   * Longest payload (its JSON) that {@linkcode RequestStateCodec.seal} accepts, in UTF-16 units. Default 32 768.
   * @default 32768
   */
  maxPayloadBytes?: number;
}

/** What a state is bound to: the request it was sealed for, and optionally who sent it. */
export interface RequestStateBinding {
  /** The request's method (`tools/call`, `prompts/get`, `resources/read`). */
  method: string;
  /** The request's params; `inputResponses`, `requestState` and `_meta` are left out of the digest. */
  params: unknown;
  /** The authenticated principal (e.g. an OAuth `sub`); a state opens only for the same one. */
  principal?: string;
}

const TAG_CONTEXT = "omc-request-state-v1.";
const BODY_KEYS = new Set(["v", "m", "d", "u", "e", "p"]);
/** Params nested deeper than this are refused by the digest (attacker input must not blow the stack). */
const MAX_PARAMS_DEPTH = 512;
const BASE64URL = /^[A-Za-z0-9_-]*$/;
const encoder = new TextEncoder();

/**
 * Seals a JSON payload into a `requestState` bound to one request, and opens it again on the retry.
 * Every refusal is a {@linkcode RequestStateError} (JSON-RPC -32602) whose `reason` says which check
 * failed: `malformed`, `oversize`, `tampered`, `expired` or `foreign`.
 *
 * @example
 * ```ts
 * declare const params: Record<string, unknown>, retryParams: Record<string, unknown>;
 * const codec = new RequestStateCodec({ key: process.env.MCP_STATE_KEY }); // 64 hex chars
 * const state = await codec.seal({ step: 2 }, { method: "tools/call", params });
 * const payload = await codec.open(state, { method: "tools/call", params: retryParams }); // { step: 2 }
 * ```
 */
export class RequestStateCodec {
  /** The lifetime of a sealed state, in milliseconds. */
  readonly stateTtl: number;
  /** The longest state string accepted or produced. */
  readonly maxStateBytes: number;
  /** The longest payload JSON accepted by `seal`. */
  readonly maxPayloadBytes: number;
  readonly #time: TimeProvider;
  readonly #epochOrigin: number;
  readonly #keyBytes: Uint8Array;
  #key: Promise<CryptoKey> | undefined;

  constructor(options: RequestStateCodecOptions = {}) {
    this.stateTtl = integerOption("stateTtl", options.stateTtl, 600_000);
    this.maxStateBytes = integerOption("maxStateBytes", options.maxStateBytes, 65_536, 64);
    this.maxPayloadBytes = integerOption("maxPayloadBytes", options.maxPayloadBytes, 32_768, 1);
    this.#time = options.timeProvider ?? systemTimeProvider;
    this.#epochOrigin = numberOption(
      "epochOrigin",
      options.epochOrigin,
      globalThis.performance?.timeOrigin ?? 0,
    );
    this.#keyBytes = keyBytesOf(options.key);
  }

  /** Seals `payload` (any JSON value) for the request `binding` names. Throws `RangeError` when the payload or the state is too large. */
  async seal(payload: unknown, binding: RequestStateBinding): Promise<string> {
    const payloadJson = JSON.stringify(payload ?? null);
    if (payloadJson.length > this.maxPayloadBytes) {
      throw new RangeError(
        `Request state payload is ${payloadJson.length} characters, above maxPayloadBytes ${this.maxPayloadBytes}`,
      );
    }
    const body: Record<string, unknown> = { v: 1, m: binding.method, d: await paramsDigest(binding.params) };
    if (binding.principal !== undefined) body.u = await sha256Base64Url(binding.principal);
    body.e = this.#epochNow() + this.stateTtl;
    const bodyText = `{${
      Object.entries(body).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")
    },"p":${payloadJson}}`;
    const encodedBody = base64UrlEncode(encoder.encode(bodyText));
    const tag = new Uint8Array(
      await crypto.subtle.sign("HMAC", await this.#cryptoKey(), encoder.encode(TAG_CONTEXT + encodedBody)),
    );
    const state = `${encodedBody}.${base64UrlEncode(tag)}`;
    if (state.length > this.maxStateBytes) {
      throw new RangeError(
        `Request state is ${state.length} characters, above maxStateBytes ${this.maxStateBytes}`,
      );
    }
    return state;
  }

  /**
   * Verifies `state` (attacker input: any value) for the request `binding` names and returns its
   * payload. Rejects with a {@linkcode RequestStateError}. Checks, in order: a string no longer than
   * `maxStateBytes`; the `body.tag` shape; the MAC (constant time, `crypto.subtle.verify`); strict
   * parsing of the body; expiry; method, params digest and principal.
   */
  async open(state: unknown, binding: RequestStateBinding): Promise<unknown> {
    if (typeof state !== "string") {
      throw malformed(
        `requestState must be a string, got ${
          state === null ? "null" : Array.isArray(state) ? "an array" : typeof state
        }`,
      );
    }
    if (state.length > this.maxStateBytes) {
      throw new RequestStateError(
        "oversize",
        `Invalid requestState: ${state.length} characters, above the limit of ${this.maxStateBytes}`,
      );
    }
    const dot = state.indexOf(".");
    if (dot <= 0 || dot !== state.lastIndexOf(".")) {
      throw malformed("Invalid requestState: not a state this server issued (expected two base64url parts)");
    }
    const encodedBody = state.slice(0, dot);
    const tag = base64UrlDecode(state.slice(dot + 1));
    if (tag === undefined || tag.length !== 32 || !BASE64URL.test(encodedBody)) {
      throw malformed("Invalid requestState: not a state this server issued (bad base64url or tag length)");
    }
    const valid = await crypto.subtle.verify(
      "HMAC",
      await this.#cryptoKey(),
      tag as BufferSource,
      encoder.encode(TAG_CONTEXT + encodedBody),
    );
    if (!valid) {
      throw new RequestStateError(
        "tampered",
        "Invalid requestState: its signature does not verify (modified, or issued with another key)",
      );
    }
    const bodyBytes = base64UrlDecode(encodedBody);
    const body = bodyBytes === undefined ? undefined : parseBody(bodyBytes);
    if (body === undefined) {
      throw malformed("Invalid requestState: its body is not the JSON this server writes");
    }
    const now = this.#epochNow();
    if (now > body.e) {
      throw new RequestStateError(
        "expired",
        `Invalid requestState: expired ${
          Math.ceil(now - body.e)
        } ms ago (states live ${this.stateTtl} ms); call again without requestState`,
      );
    }
    if (body.m !== binding.method) {
      throw new RequestStateError(
        "foreign",
        `Invalid requestState: issued for method ${JSON.stringify(body.m)}, not ${
          JSON.stringify(binding.method)
        }`,
      );
    }
    if (body.d !== (await paramsDigest(binding.params))) {
      throw new RequestStateError(
        "foreign",
        `Invalid requestState: issued for a ${binding.method} request with other params`,
      );
    }
    const principal = binding.principal === undefined ? undefined : await sha256Base64Url(binding.principal);
    if (body.u !== principal) {
      throw new RequestStateError("foreign", "Invalid requestState: issued to another principal");
    }
    return body.p;
  }

  /** Whole milliseconds since the Unix epoch (whole, so a state lives exactly `stateTtl`). */
  #epochNow(): number {
    return Math.floor(this.#epochOrigin + this.#time.now());
  }

  #cryptoKey(): Promise<CryptoKey> {
    this.#key ??= crypto.subtle.importKey(
      "raw",
      this.#keyBytes as BufferSource,
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign", "verify"],
    );
    return this.#key;
  }
}

interface StateBody {
  v: 1;
  m: string;
  d: string;
  u?: string;
  e: number;
  p: unknown;
}

function malformed(message: string): RequestStateError {
  return new RequestStateError("malformed", message.startsWith("Invalid") ? message : `Invalid ${message}`);
}

/** Strict: valid UTF-8, valid JSON, exactly our keys with our types. */
function parseBody(bytes: Uint8Array): StateBody | undefined {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return undefined;
  }
  if (!isPlainObject(value)) return undefined;
  for (const key of Object.keys(value)) if (!BODY_KEYS.has(key)) return undefined;
  const { v, m, d, u, e } = value;
  if (
    v !== 1 || typeof m !== "string" || typeof d !== "string" || typeof e !== "number" || !Number.isFinite(e)
  ) return undefined;
  if (u !== undefined && typeof u !== "string") return undefined;
  if (!("p" in value)) return undefined;
  return value as unknown as StateBody;
}

function keyBytesOf(key: RequestStateCodecOptions["key"]): Uint8Array {
  if (key === undefined) return crypto.getRandomValues(new Uint8Array(32));
  if (typeof key === "string") {
    if (!/^[0-9a-fA-F]{64}$/.test(key)) {
      throw new InvalidOptionError(
        `Option key must be 64 hex characters or at least 32 raw bytes, got a string of ${key.length} characters that is not 64 hex digits`,
      );
    }
    const bytes = new Uint8Array(32);
    for (let i = 0; i < 32; i++) bytes[i] = parseInt(key.slice(i * 2, i * 2 + 2), 16);
    return bytes;
  }
  const bytes = key instanceof ArrayBuffer
    ? new Uint8Array(key)
    : key instanceof Uint8Array
    ? key
    : undefined;
  if (bytes === undefined) {
    throw new InvalidOptionError(
      `Option key must be a Uint8Array, an ArrayBuffer or 64 hex characters, got ${typeof key}`,
    );
  }
  if (bytes.length < 32) {
    throw new InvalidOptionError(`Option key must hold at least 32 bytes, got ${bytes.length}`);
  }
  return bytes.slice();
}

/** SHA-256 (base64url) of the canonical JSON of `params` without `inputResponses`, `requestState` and `_meta`. */
export async function paramsDigest(params: unknown): Promise<string> {
  let salient: unknown = params ?? null;
  if (isPlainObject(params)) {
    const { inputResponses: _r, requestState: _s, _meta: _m, ...rest } = params;
    salient = rest;
  }
  return await sha256Base64Url(canonicalJson(salient, 0));
}

/** JSON with object keys sorted at every level; `undefined` members dropped as `JSON.stringify` does. */
export function canonicalJson(value: unknown, depth = 0): string {
  if (depth > MAX_PARAMS_DEPTH) {
    throw new RequestStateError("malformed", `Invalid params: nested deeper than ${MAX_PARAMS_DEPTH} levels`);
  }
  if (Array.isArray(value)) {
    return `[${
      value.map((item) => (item === undefined ? "null" : canonicalJson(item, depth + 1))).join(",")
    }]`;
  }
  if (isPlainObject(value)) {
    const keys = Object.keys(value).filter((k) => value[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k], depth + 1)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

async function sha256Base64Url(text: string): Promise<string> {
  return base64UrlEncode(new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text))));
}

/** Unpadded base64url of `bytes`. */
export function base64UrlEncode(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Strict unpadded base64url decoding; `undefined` for anything else. */
export function base64UrlDecode(text: string): Uint8Array | undefined {
  if (!BASE64URL.test(text) || text.length % 4 === 1) return undefined;
  let binary: string;
  try {
    binary = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4));
  } catch {
    return undefined;
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  // Only the canonical encoding is accepted (no stray bits in the last character).
  return base64UrlEncode(bytes) === text ? bytes : undefined;
}
