// @ts-check
// The OAuth side of the conformance client for the suite's `auth/*` scenarios (issue 19): a `fetch`
// for the HTTP client transport that runs the authorization flow on 401/403.
//
// The suite's mock authorization server approves at once and redirects to our redirect URI, so the
// "browser" is a fetch of the authorization URL that reads the redirect's Location (nothing listens
// on the redirect URI). Pre-registered credentials come from MCP_CONFORMANCE_CONTEXT; the Client ID
// Metadata Document URL is the one the suite expects.
//
// Wiring in conformance-client.mjs:
//   import { withOAuth } from "onemodelcontext/auth";
//   const fetch = await conformanceAuthFetch(scenario, context, { withOAuth });
//   const client = await ContextClient.connect(httpTransport(url, { fetch }));
//   await runAuthScenario(client);

/** The CIMD URL the `auth/basic-cimd` scenario expects as `client_id`. */
export const CONFORMANCE_CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json";
const REDIRECT_URI = "http://localhost:3000/callback";

/**
 * What MCP_CONFORMANCE_CONTEXT holds for the `auth/*` scenarios (each scenario sets its own fields).
 * @typedef {object} ConformanceContext
 * @property {string} [client_id] pre-registered credentials
 * @property {string} [client_secret]
 * @property {string} [private_key_pem] a PKCS#8 key for `private_key_jwt`
 * @property {string} [signing_algorithm] `ES256` (default) or `RS256`
 * @property {string} [valid_jwt] the workload's JWT (SEP-1933)
 * @property {string} [idp_id_token] the user's ID token at the IdP (SEP-990)
 * @property {string} [idp_token_endpoint]
 * @property {string} [idp_issuer]
 * @property {string} [idp_client_id]
 */

/** @typedef {import("onemodelcontext/auth").OAuthClientOptions} OAuthClientOptions */

/**
 * `withOAuth(fetch, …)` configured for `scenario` (async: a PEM key in the context is imported first).
 * @param {string} scenario MCP_CONFORMANCE_SCENARIO
 * @param {ConformanceContext | undefined} context parsed MCP_CONFORMANCE_CONTEXT
 * @param {{
 *   withOAuth: typeof import("onemodelcontext/auth").withOAuth,
 *   workloadTokenFile?: typeof import("onemodelcontext/node").workloadTokenFile,
 *   fetch?: typeof globalThis.fetch,
 * }} deps
 */
export async function conformanceAuthFetch(
  scenario,
  context,
  { withOAuth, workloadTokenFile, fetch = globalThis.fetch },
) {
  /** @type {OAuthClientOptions} */
  const options = {
    redirectUri: REDIRECT_URI,
    clientMetadataUrl: CONFORMANCE_CLIENT_METADATA_URL,
    clientMetadata: { client_name: "onemodelcontext-conformance-client" },
    redirectTo: async (url) => {
      const response = await fetch(url, { redirect: "manual" });
      const location = response.headers.get("location");
      await response.body?.cancel();
      if (location === null) {
        throw new Error(
          `The authorization endpoint ${url.origin}${url.pathname} answered ${response.status} without a redirect`,
        );
      }
      return new URL(location, url);
    },
  };
  if (typeof context?.client_id === "string") {
    /** @type {NonNullable<OAuthClientOptions["client"]>} */
    const client = { clientId: context.client_id };
    if (typeof context.client_secret === "string") client.clientSecret = context.client_secret;
    if (typeof context.private_key_pem === "string") {
      client.privateKey = await importPrivateKey(context.private_key_pem, context.signing_algorithm);
    }
    options.client = client;
  }
  if (scenario.startsWith("auth/client-credentials")) options.grantType = "client_credentials";
  // SEP-1933: the workload's JWT, written to a file and read back as a deployment does (workloadTokenFile).
  if (scenario === "auth/wif-jwt-bearer") {
    /** @type {string | (() => Promise<string>)} */
    let token = required(context, "valid_jwt");
    if (workloadTokenFile !== undefined) {
      const { mkdtempSync, writeFileSync } = await import("node:fs");
      const { tmpdir } = await import("node:os");
      const { join } = await import("node:path");
      const file = join(mkdtempSync(join(tmpdir(), "mcp-wif-")), "token");
      writeFileSync(file, token, { mode: 0o600 });
      token = workloadTokenFile(file);
    }
    options.workloadIdentity = { token };
  }
  // SEP-990: the user's ID token exchanged at the IdP for an ID-JAG, then the JWT bearer grant.
  if (scenario === "auth/enterprise-managed-authorization") {
    options.enterpriseAuthorization = {
      idToken: required(context, "idp_id_token"),
      idpTokenEndpoint: required(context, "idp_token_endpoint"),
      idpIssuer: context?.idp_issuer,
      idpClientId: required(context, "idp_client_id"),
    };
  }
  return withOAuth(fetch, options);
}

/**
 * `context[key]`, which the scenario provides.
 * @param {ConformanceContext | undefined} context
 * @param {keyof ConformanceContext} key
 * @returns {string}
 */
function required(context, key) {
  const value = context?.[key];
  if (typeof value !== "string") throw new Error(`MCP_CONFORMANCE_CONTEXT has no ${key} for this scenario`);
  return value;
}

/**
 * Imports a PKCS#8 PEM signing key for `private_key_jwt` (ES256 or RS256).
 * @param {string} pem
 * @param {string} [algorithm]
 * @returns {Promise<CryptoKey>}
 */
async function importPrivateKey(pem, algorithm = "ES256") {
  const der = Uint8Array.from(
    atob(pem.replace(/-----[^-]+-----/g, "").replace(/\s+/g, "")),
    (c) => c.charCodeAt(0),
  );
  const params = algorithm === "RS256"
    ? { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }
    : { name: "ECDSA", namedCurve: "P-256" };
  return crypto.subtle.importKey("pkcs8", der, params, false, ["sign"]);
}

/**
 * What the client does once connected in an `auth/*` scenario: list the tools and call each with `{}`
 * (the mocks serve one, `test-tool`; `auth/scope-step-up` answers the call 403 `insufficient_scope`).
 * @param {{ request(method: string, params: object): Promise<any> }} client a connected ContextClient
 */
export async function runAuthScenario(client) {
  const { tools } = await client.request("tools/list", {});
  for (const tool of tools) await client.request("tools/call", { name: tool.name, arguments: {} });
}
