/**
 * Test fixtures on web APIs only (they run on Node, Deno and Bun): a small OAuth 2.1 authorization
 * server and a protected MCP resource, both as fetch handlers, and a fetch that routes by origin to
 * them (no sockets). `serve_handler.ts` puts a handler on a real 127.0.0.1 port (Node).
 */
import {
  type AccessTokenInfo,
  type ProtectedResourceMetadata,
  requireBearer,
  type RequireBearerOptions,
} from "../../../src/auth/mod.ts";

export type Handler = (request: Request) => Response | Promise<Response>;

/** Where the authorization server serves its metadata. */
export type MetadataLocation = "oauth" | "openid-insert" | "openid-append";

export interface AuthServerOptions {
  /** Base URL, e.g. `http://127.0.0.1:9001`. */
  origin: string;
  /** Issuer path, e.g. `/tenant1`. Default none. */
  tenant?: string;
  metadataAt?: MetadataLocation;
  /** Advertised PKCE methods; `null` omits the member. Default ["S256"]. */
  pkceMethods?: string[] | null;
  /** `authorization_response_iss_parameter_supported`; `null` omits it. Default true. */
  issAdvertised?: boolean | null;
  /** What `iss` the redirect carries. Default "correct". */
  issInRedirect?: "correct" | "wrong" | "omit" | "normalized";
  /** The `issuer` the metadata names. Default: the real one. */
  metadataIssuer?: string;
  cimd?: boolean;
  registration?: boolean;
  tokenAuthMethods?: string[];
  scopesSupported?: string[];
  /** `expires_in` of access tokens, seconds. Default 3600. */
  tokenLifetime?: number;
  /** Pre-registered clients: id → secret (undefined for public). */
  clients?: Record<string, string | undefined>;
  /** What DCR answers: the `token_endpoint_auth_method` and whether a secret is issued. */
  registerAs?: { method?: string; secret?: boolean; omitSecretExpiry?: boolean };
  /** Clients authenticating with private_key_jwt: id → public key. */
  jwtClients?: Record<string, CryptoKey>;
  /** Scopes never granted, even when requested. */
  withhold?: string[];
}

export interface IssuedToken {
  scopes: string[];
  resource: string | undefined;
  clientId: string;
}

export interface TokenRequestRecord {
  params: Record<string, string>;
  authorization: string | null;
}

/** An authorization server that approves every authorization request at once. */
export class AuthServerFixture {
  readonly options: AuthServerOptions;
  readonly issuer: string;
  readonly requests: string[] = [];
  readonly authorizations: URLSearchParams[] = [];
  readonly tokenRequests: TokenRequestRecord[] = [];
  readonly registrations: Record<string, unknown>[] = [];
  readonly tokens = new Map<string, IssuedToken>();
  #clients = new Map<
    string,
    { secret: string | undefined; method: string; redirectUris: string[] | undefined }
  >();
  #codes = new Map<
    string,
    {
      challenge: string;
      method: string;
      scopes: string[];
      resource: string | undefined;
      clientId: string;
      redirectUri: string;
    }
  >();
  #refresh = new Map<string, IssuedToken>();
  #seq = 0;

  constructor(options: AuthServerOptions) {
    this.options = options;
    this.issuer = `${options.origin}${options.tenant ?? ""}`;
    for (const [id, secret] of Object.entries(options.clients ?? {})) {
      this.#clients.set(id, {
        secret,
        method: secret === undefined ? "none" : "client_secret_basic",
        redirectUris: undefined,
      });
    }
  }

  metadataPath(): string {
    const tenant = this.options.tenant ?? "";
    switch (this.options.metadataAt ?? "oauth") {
      case "oauth":
        return `/.well-known/oauth-authorization-server${tenant}`;
      case "openid-insert":
        return `/.well-known/openid-configuration${tenant}`;
      case "openid-append":
        return `${tenant}/.well-known/openid-configuration`;
    }
  }

  metadata(): Record<string, unknown> {
    const o = this.options;
    const base = this.issuer;
    const doc: Record<string, unknown> = {
      issuer: o.metadataIssuer ?? this.issuer,
      authorization_endpoint: `${base}/authorize`,
      token_endpoint: `${base}/token`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token", "client_credentials"],
      token_endpoint_auth_methods_supported: o.tokenAuthMethods ??
        ["client_secret_basic", "client_secret_post", "none"],
    };
    if (o.registration !== false) doc.registration_endpoint = `${base}/register`;
    if (o.pkceMethods !== null) doc.code_challenge_methods_supported = o.pkceMethods ?? ["S256"];
    if (o.issAdvertised !== null) {
      doc.authorization_response_iss_parameter_supported = o.issAdvertised ?? true;
    }
    if (o.cimd) doc.client_id_metadata_document_supported = true;
    if (o.scopesSupported) doc.scopes_supported = o.scopesSupported;
    return doc;
  }

  readonly handler: Handler = async (request) => {
    const url = new URL(request.url);
    this.requests.push(`${request.method} ${url.pathname}`);
    const tenant = this.options.tenant ?? "";
    if (request.method === "GET" && url.pathname === this.metadataPath()) {
      return Response.json(this.metadata());
    }
    if (request.method === "GET" && url.pathname === `${tenant}/authorize`) return this.#authorize(url);
    if (request.method === "POST" && url.pathname === `${tenant}/token`) return this.#token(request);
    if (
      request.method === "POST" && url.pathname === `${tenant}/register` &&
      this.options.registration !== false
    ) return this.#register(request);
    return new Response("Not found", { status: 404 });
  };

  #authorize(url: URL): Response {
    const q = url.searchParams;
    this.authorizations.push(q);
    const clientId = q.get("client_id") ?? "";
    const redirectUri = q.get("redirect_uri") ?? "";
    const known = this.#clients.get(clientId);
    const cimd = this.options.cimd === true && clientId.startsWith("https://");
    if (known === undefined && !cimd) return Response.json({ error: "invalid_client" }, { status: 400 });
    if (known?.redirectUris !== undefined && !known.redirectUris.includes(redirectUri)) {
      return Response.json({ error: "invalid_request" }, { status: 400 });
    }
    const code = `code-${++this.#seq}`;
    this.#codes.set(code, {
      challenge: q.get("code_challenge") ?? "",
      method: q.get("code_challenge_method") ?? "",
      scopes: (q.get("scope") ?? "").split(" ").filter((scope) =>
        scope !== "" && !(this.options.withhold ?? []).includes(scope)
      ),
      resource: q.get("resource") ?? undefined,
      clientId,
      redirectUri,
    });
    const target = new URL(redirectUri);
    target.searchParams.set("code", code);
    const state = q.get("state");
    if (state !== null) target.searchParams.set("state", state);
    const iss = this.options.issInRedirect ?? "correct";
    if (iss === "correct") target.searchParams.set("iss", this.issuer);
    else if (iss === "wrong") target.searchParams.set("iss", "https://evil.example.com");
    else if (iss === "normalized") target.searchParams.set("iss", `${this.issuer}/`);
    return new Response(null, { status: 302, headers: { location: target.href } });
  }

  async #token(request: Request): Promise<Response> {
    const form = new URLSearchParams(await request.text());
    const params = Object.fromEntries(form);
    const authorization = request.headers.get("authorization");
    this.tokenRequests.push({ params, authorization });
    let clientId = params.client_id;
    let secret = params.client_secret;
    if (authorization?.startsWith("Basic ")) {
      const [id, pass] = atob(authorization.slice(6)).split(":").map((s) =>
        decodeURIComponent(s.replace(/\+/g, " "))
      );
      clientId = id;
      secret = pass;
    }
    const jwtKey = clientId === undefined ? undefined : this.options.jwtClients?.[clientId];
    if (jwtKey !== undefined) {
      const valid =
        params.client_assertion_type === "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" &&
        (await (await import("jose")).jwtVerify(params.client_assertion ?? "", jwtKey, {
          audience: this.issuer,
          issuer: clientId,
          subject: clientId,
        }).then(
          () => true,
          () => false,
        ));
      if (!valid) return Response.json({ error: "invalid_client" }, { status: 401 });
      if (params.grant_type !== "client_credentials") {
        return Response.json({ error: "unauthorized_client" }, { status: 400 });
      }
      return this.#issue({
        scopes: (params.scope ?? "").split(" ").filter(Boolean),
        resource: params.resource,
        clientId: clientId as string,
      }, false);
    }
    const client = clientId === undefined ? undefined : this.#clients.get(clientId);
    const cimd = this.options.cimd === true && clientId?.startsWith("https://") === true;
    if ((client === undefined && !cimd) || (client?.secret !== undefined && client.secret !== secret)) {
      return Response.json({ error: "invalid_client" }, { status: 401 });
    }
    const id = clientId as string;
    switch (params.grant_type) {
      case "authorization_code": {
        const code = this.#codes.get(params.code ?? "");
        this.#codes.delete(params.code ?? "");
        if (code === undefined || code.clientId !== id || code.redirectUri !== params.redirect_uri) {
          return Response.json({ error: "invalid_grant" }, { status: 400 });
        }
        if (code.method !== "S256" || (await s256(params.code_verifier ?? "")) !== code.challenge) {
          return Response.json({ error: "invalid_grant", error_description: "PKCE verification failed" }, {
            status: 400,
          });
        }
        if (params.resource !== code.resource) {
          return Response.json({ error: "invalid_target" }, { status: 400 });
        }
        return this.#issue({ scopes: code.scopes, resource: code.resource, clientId: id });
      }
      case "refresh_token": {
        const grant = this.#refresh.get(params.refresh_token ?? "");
        if (grant === undefined || grant.clientId !== id) {
          return Response.json({ error: "invalid_grant" }, { status: 400 });
        }
        this.#refresh.delete(params.refresh_token ?? "");
        return this.#issue(grant);
      }
      case "client_credentials": {
        if (client?.secret === undefined) {
          return Response.json({ error: "unauthorized_client" }, { status: 400 });
        }
        return this.#issue({
          scopes: (params.scope ?? "").split(" ").filter(Boolean),
          resource: params.resource,
          clientId: id,
        }, false);
      }
      default:
        return Response.json({ error: "unsupported_grant_type" }, { status: 400 });
    }
  }

  #issue(grant: IssuedToken, withRefresh = true): Response {
    const accessToken = `at-${++this.#seq}`;
    this.tokens.set(accessToken, grant);
    const body: Record<string, unknown> = {
      access_token: accessToken,
      token_type: "Bearer",
      expires_in: this.options.tokenLifetime ?? 3600,
    };
    if (withRefresh) {
      const refreshToken = `rt-${++this.#seq}`;
      this.#refresh.set(refreshToken, grant);
      body.refresh_token = refreshToken;
    }
    if (grant.scopes.length > 0) body.scope = grant.scopes.join(" ");
    return Response.json(body);
  }

  async #register(request: Request): Promise<Response> {
    const body = (await request.json()) as Record<string, unknown>;
    this.registrations.push(body);
    const clientId = `dcr-${new URL(this.options.origin).port}-${++this.#seq}`;
    const withSecret = this.options.registerAs?.secret ?? true;
    const secret = withSecret ? `secret-${this.#seq}` : undefined;
    const method = this.options.registerAs?.method ?? (withSecret ? "client_secret_basic" : "none");
    this.#clients.set(clientId, { secret, method, redirectUris: body.redirect_uris as string[] | undefined });
    return Response.json({
      ...body,
      client_id: clientId,
      ...(secret === undefined ? {} : { client_secret: secret }),
      ...(secret === undefined || this.options.registerAs?.omitSecretExpiry
        ? {}
        : { client_secret_expires_at: 0 }),
      token_endpoint_auth_method: method,
    }, { status: 201 });
  }

  /** A verifier for {@linkcode requireBearer}: known token, audience = `resource`. */
  verifierFor(resource: string): (token: string) => AccessTokenInfo | undefined {
    return (token) => {
      const issued = this.tokens.get(token);
      if (issued === undefined || (issued.resource !== undefined && issued.resource !== resource)) {
        return undefined;
      }
      return { scopes: issued.scopes, clientId: issued.clientId };
    };
  }

  /** Forgets every issued access token (as if they expired on the server). */
  revokeAccessTokens(): void {
    this.tokens.clear();
  }
}

async function s256(verifier: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  return btoa(String.fromCharCode(...digest)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export interface ResourceFixtureOptions {
  /** Base URL, e.g. `http://127.0.0.1:9000`. The MCP endpoint is `<origin>/mcp`. */
  origin: string;
  authServers: string[];
  /** Where the PRM is served: path-based well-known, root well-known, or a custom path. */
  prmAt?: "path" | "root" | "custom";
  /** Put `resource_metadata` in the challenge. Default true. */
  prmInHeader?: boolean;
  /** The `resource` the PRM names. Default: the MCP endpoint (or the origin for `root`). */
  prmResource?: string;
  scopesSupported?: string[];
  verify: (token: string) => AccessTokenInfo | undefined;
  /** Scopes every request needs (and the challenge's `scope`). */
  scopes?: string[];
  /** Scopes per tool. */
  toolScopes?: Record<string, string[]>;
}

/** A protected MCP endpoint built on {@linkcode requireBearer}; answers every JSON-RPC call with `{ ok: true }`. */
export class ResourceFixture {
  readonly options: ResourceFixtureOptions;
  readonly serverUrl: string;
  readonly requests: { path: string; authorization: string | null }[] = [];
  readonly #protected: Handler;

  constructor(options: ResourceFixtureOptions) {
    this.options = options;
    this.serverUrl = `${options.origin}/mcp`;
    const bearer: RequireBearerOptions = { verify: (token) => options.verify(token) };
    if (options.scopes !== undefined) bearer.scopes = options.scopes;
    const tools = options.toolScopes;
    if (tools !== undefined) {
      bearer.scopesFor = (
        call,
      ) => (call.method === "tools/call" && call.name !== undefined ? tools[call.name] : undefined);
    }
    if (options.prmInHeader !== false) bearer.resourceMetadataUrl = `${options.origin}${this.prmPath()}`;
    this.#protected = requireBearer(async (request) => {
      const body = (await request.json()) as { id?: unknown };
      return Response.json({ jsonrpc: "2.0", id: body.id ?? null, result: { ok: true } });
    }, bearer);
  }

  prmPath(): string {
    switch (this.options.prmAt ?? "path") {
      case "path":
        return "/.well-known/oauth-protected-resource/mcp";
      case "root":
        return "/.well-known/oauth-protected-resource";
      case "custom":
        return "/custom/metadata.json";
    }
  }

  prm(): ProtectedResourceMetadata {
    const resource = this.options.prmResource ??
      (this.options.prmAt === "root" ? this.options.origin : this.serverUrl);
    const doc: ProtectedResourceMetadata = { resource, authorization_servers: this.options.authServers };
    if (this.options.scopesSupported !== undefined) doc.scopes_supported = this.options.scopesSupported;
    return doc;
  }

  readonly handler: Handler = async (request) => {
    const url = new URL(request.url);
    this.requests.push({
      path: `${request.method} ${url.pathname}`,
      authorization: request.headers.get("authorization"),
    });
    if (request.method === "GET" && url.pathname === this.prmPath()) return Response.json(this.prm());
    if (url.pathname === "/mcp") return this.#protected(request);
    return new Response("Not found", { status: 404 });
  };
}

/** A fetch that hands each request to the handler of its origin (404 for unknown origins). */
export function routeFetch(
  routes: Record<string, Handler>,
): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return async (input, init) => {
    const request = new Request(input, init);
    const handler = routes[new URL(request.url).origin];
    if (handler === undefined) return new Response("No such origin", { status: 404 });
    return handler(request);
  };
}

/** Follows the authorization redirect like a browser that the server approves at once: returns the `Location`. */
export function autoApprove(
  fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>,
): (url: URL) => Promise<string> {
  return async (url) => {
    const response = await fetch(url, { redirect: "manual" });
    const location = response.headers.get("location");
    if (response.status !== 302 || location === null) {
      throw new Error(`The authorization endpoint answered ${response.status}`);
    }
    return location;
  };
}
