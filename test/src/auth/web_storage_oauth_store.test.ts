import { describe, expect, it } from "vitest";
import { type StorageLike, WebStorageOAuthStore, withOAuth } from "../../../src/auth/mod.ts";
import { AuthServerFixture, autoApprove, ResourceFixture, routeFetch } from "./oauth_fixtures.ts";

class MapStorage implements StorageLike {
  readonly items = new Map<string, string>();
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.items.set(key, value);
  }
  removeItem(key: string): void {
    this.items.delete(key);
  }
}

const AS = "http://127.0.0.1:9301";
const RS = "http://127.0.0.1:9300";

describe("WebStorageOAuthStore", () => {
  it("lets a browser redirect finish on the next page load: the pending authorization and the registration survive", async () => {
    const storage = new MapStorage();
    const as = new AuthServerFixture({ origin: AS });
    const rs: ResourceFixture = new ResourceFixture({
      origin: RS,
      authServers: [AS],
      verify: (t) => as.verifierFor(rs.serverUrl)(t),
    });
    const fetch = routeFetch({ [AS]: as.handler, [RS]: rs.handler });
    let leftFor: URL | undefined;
    const firstPage = withOAuth(fetch, {
      store: new WebStorageOAuthStore(storage),
      redirectUri: "https://app.example.com/cb",
      redirectTo: (url) => void (leftFor = url),
    });
    const post = (authFetch: typeof firstPage) => authFetch(rs.serverUrl, { method: "POST", body: "{}" });
    await expect(post(firstPage)).rejects.toMatchObject({ code: "authorization_pending" });
    expect([...storage.items.keys()].some((k) => k.startsWith("onemodelcontext.oauth.pending."))).toBe(true);

    const callback = await autoApprove(fetch)(leftFor as URL);
    const secondPage = withOAuth(fetch, {
      store: new WebStorageOAuthStore(storage),
      redirectUri: "https://app.example.com/cb",
      redirectTo: () => {},
    });
    await secondPage.oauth.finishAuthorization(callback);
    expect((await post(secondPage)).status).toBe(200);
    expect(as.registrations).toHaveLength(1);
    expect([...storage.items.keys()].some((k) => k.startsWith("onemodelcontext.oauth.pending."))).toBe(false);
  });

  it("keeps expiresAt for the instance that saved it and drops it for another (another page load's clock)", async () => {
    const storage = new MapStorage();
    const tokens = { accessToken: "a", tokenType: "Bearer", issuer: AS, clientId: "c", expiresAt: 123 };
    const store = new WebStorageOAuthStore(storage);
    store.saveTokens("https://x/mcp", tokens);
    expect(store.getTokens("https://x/mcp")).toEqual(tokens);
    const { expiresAt: _, ...rest } = tokens;
    expect(new WebStorageOAuthStore(storage).getTokens("https://x/mcp")).toEqual(rest);
  });
});
