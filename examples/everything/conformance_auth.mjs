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
 * `withOAuth(fetch, …)` configured for `scenario` (async: a PEM key in the context is imported first).
 * @param {string} scenario MCP_CONFORMANCE_SCENARIO
 * @param {Record<string, unknown> | undefined} context parsed MCP_CONFORMANCE_CONTEXT
 * @param {{ withOAuth: Function, workloadTokenFile?: Function, fetch?: typeof fetch }} deps
 */
export async function conformanceAuthFetch(
  scenario,
  context,
  { withOAuth, workloadTokenFile, fetch = globalThis.fetch },
) {
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
    options.client = { clientId: context.client_id };
    if (typeof context.client_secret === "string") options.client.clientSecret = context.client_secret;
    if (typeof context.private_key_pem === "string") {
      options.client.privateKey = await importPrivateKey(context.private_key_pem, context.signing_algorithm);
    }
  }
  if (scenario.startsWith("auth/client-credentials")) options.grantType = "client_credentials";
  // SEP-1933: the workload's JWT, written to a file and read back as a deployment does (workloadTokenFile).
  if (scenario === "auth/wif-jwt-bearer") {
    let token = context.valid_jwt;
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
      idToken: context.idp_id_token,
      idpTokenEndpoint: context.idp_token_endpoint,
      idpIssuer: context.idp_issuer,
      idpClientId: context.idp_client_id,
    };
  }
  return withOAuth(fetch, options);
}

/** Imports a PKCS#8 PEM signing key for `private_key_jwt` (ES256 or RS256). */
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
