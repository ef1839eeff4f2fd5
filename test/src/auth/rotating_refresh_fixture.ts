/**
 * An authorization server that rotates refresh tokens and revokes the whole family when a spent one
 * comes back (OAuth 2.1 §4.3.1, the reuse detection real servers do), with a protected MCP endpoint:
 * both as one fetch handler on one origin. Seeded with one family: a stale access token and a live
 * refresh token, as a process finds them after a night.
 */

export class RotatingRefreshServer {
  origin = "";
  refreshRequests = 0;
  reuseDetected = 0;
  logins = 0;
  /** Refresh responses wait on this when set (to line up concurrent refreshes in a test). */
  gate: Promise<void> | undefined;
  #live = new Set<string>(); // access tokens the resource accepts
  #current = "rt-0"; // the family's live refresh token
  #spent = new Set<string>();
  #seq = 0;
  #listeners: (() => void)[] = [];

  /** Resolves once `predicate` holds (checked after every request). */
  until(predicate: () => boolean): Promise<void> {
    if (predicate()) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => {
        if (!predicate()) return;
        this.#listeners = this.#listeners.filter((l) => l !== check);
        resolve();
      };
      this.#listeners.push(check);
    });
  }

  get mcpUrl(): string {
    return `${this.origin}/mcp`;
  }

  /** The tokens a client holds at the start: the access token is no longer accepted. */
  seed(): { accessToken: string; tokenType: string; refreshToken: string; issuer: string; clientId: string } {
    return {
      accessToken: "at-stale",
      tokenType: "Bearer",
      refreshToken: "rt-0",
      issuer: this.origin,
      clientId: "cli",
    };
  }

  readonly handler = async (request: Request, origin?: string): Promise<Response> => {
    if (origin !== undefined) this.origin = origin;
    try {
      return await this.#handle(request);
    } finally {
      for (const listener of [...this.#listeners]) listener();
    }
  };

  async #handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const base = this.origin;
    if (url.pathname === "/.well-known/oauth-protected-resource/mcp") {
      return Response.json({ resource: this.mcpUrl, authorization_servers: [base] });
    }
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      return Response.json({
        issuer: base,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
      });
    }
    if (url.pathname === "/token") {
      const params = new URLSearchParams(await request.text());
      if (params.get("grant_type") !== "refresh_token") {
        this.logins++;
        return Response.json({ error: "invalid_grant" }, { status: 400 });
      }
      this.refreshRequests++;
      const presented = params.get("refresh_token") ?? "";
      for (const listener of [...this.#listeners]) listener();
      if (this.gate !== undefined) await this.gate;
      if (presented !== this.#current) {
        if (this.#spent.has(presented)) {
          this.reuseDetected++;
          this.#live.clear(); // the whole family is revoked
          this.#current = "revoked";
        }
        return Response.json({ error: "invalid_grant" }, { status: 400 });
      }
      this.#spent.add(presented);
      const n = ++this.#seq;
      this.#current = `rt-${n}`;
      this.#live.add(`at-${n}`);
      return Response.json({
        access_token: `at-${n}`,
        token_type: "Bearer",
        refresh_token: `rt-${n}`,
        expires_in: 3600,
      });
    }
    if (url.pathname === "/mcp") {
      const token = (request.headers.get("authorization") ?? "").replace(/^Bearer /, "");
      if (!this.#live.has(token)) {
        return new Response(null, {
          status: 401,
          headers: {
            "www-authenticate": `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
          },
        });
      }
      return Response.json({ ok: true });
    }
    return new Response("Not found", { status: 404 });
  }
}
