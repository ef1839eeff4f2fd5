import { afterEach, describe, expect, it } from "vitest";
import { type LoopbackRedirect, startLoopbackRedirect } from "../../../adapters/node/_oauth_loopback.ts";
import { AuthError, withOAuth } from "../../../src/auth/mod.ts";
import { FakeTimeProvider, flushMicrotasks } from "../../../testing/mod.ts";
import { AuthServerFixture, type Handler, ResourceFixture } from "../../src/auth/oauth_fixtures.ts";
import { serveHandler } from "../../src/auth/serve_handler.ts";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function serve(): Promise<{ origin: string; set(handler: Handler): void }> {
  let current: Handler = () => new Response("Not ready", { status: 503 });
  const served = await serveHandler((request) => current(request));
  cleanups.push(() => served.close());
  return { origin: served.origin, set: (handler) => void (current = handler) };
}

describe("startLoopbackRedirect", () => {
  it("completes the authorization code flow over real sockets: the browser's redirect reaches 127.0.0.1", async () => {
    const asServer = await serve();
    const rsServer = await serve();
    const as = new AuthServerFixture({ origin: asServer.origin });
    const rs: ResourceFixture = new ResourceFixture({
      origin: rsServer.origin,
      authServers: [as.issuer],
      verify: (t) => as.verifierFor(rs.serverUrl)(t),
    });
    asServer.set(as.handler);
    rsServer.set(rs.handler);
    const opened: string[] = [];
    const loopback = await startLoopbackRedirect({
      open: async (url) => {
        opened.push(url.href);
        const page = await fetch(url); // a browser: follows the 302 to the loopback listener
        expect(await page.text()).toContain("Authorization complete");
      },
    });
    cleanups.push(() => loopback.close());
    expect(loopback.redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const authFetch = withOAuth(fetch, {
      redirectUri: loopback.redirectUri,
      redirectTo: (url) => loopback.redirectTo(url),
    });
    const response = await authFetch(rs.serverUrl, {
      method: "POST",
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(200);
    expect(opened).toHaveLength(1);
    expect(as.registrations[0]).toMatchObject({
      redirect_uris: [loopback.redirectUri],
      application_type: "native",
    });
  });

  it("answers 404 to other paths and to a callback nobody waits for", async () => {
    const loopback = await startLoopbackRedirect();
    cleanups.push(() => loopback.close());
    expect((await fetch(new URL("/other", loopback.redirectUri))).status).toBe(404);
    expect((await fetch(`${loopback.redirectUri}?code=x`)).status).toBe(404);
  });

  it("ignores a callback whose state is not the authorization's and keeps waiting for the real one (issue 25 item 9)", async () => {
    const loopback = await startLoopbackRedirect({ open: () => {} });
    cleanups.push(() => loopback.close());
    let outcome: unknown;
    const waiting = loopback.redirectTo(new URL("https://auth.example.com/authorize?state=s3cret&x=1")).then(
      (value) => (outcome = value),
      (error: unknown) => (outcome = error),
    );
    const forged = await fetch(`${loopback.redirectUri}?code=evil&state=other`);
    expect(forged.status).toBe(400);
    expect((await fetch(`${loopback.redirectUri}?error=access_denied`)).status).toBe(400);
    expect(outcome).toBeUndefined();
    const real = await fetch(`${loopback.redirectUri}?code=good&state=s3cret`);
    expect(real.status).toBe(200);
    await waiting;
    expect(outcome).toBeInstanceOf(URL);
    expect((outcome as URL).searchParams.get("code")).toBe("good");
  });

  it("gives up waiting after callbackTimeout, not before", async () => {
    const time = new FakeTimeProvider();
    const loopback: LoopbackRedirect = await startLoopbackRedirect({
      time,
      callbackTimeout: 60_000,
      open: () => {},
    });
    cleanups.push(() => loopback.close());
    let outcome: unknown;
    loopback.redirectTo(new URL("https://auth.example.com/authorize")).then(
      (value) => (outcome = value),
      (error: unknown) => (outcome = error),
    );
    await flushMicrotasks();
    await time.advance(59_999);
    expect(outcome).toBeUndefined();
    await time.advance(1);
    await flushMicrotasks();
    expect(outcome).toBeInstanceOf(AuthError);
    expect((outcome as AuthError).code).toBe("authorization_response");
  });
});
