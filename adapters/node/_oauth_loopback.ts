/**
 * The loopback redirect of a native OAuth client on Node (RFC 8252 §7.3): a one-shot `node:http`
 * listener on 127.0.0.1 that receives the authorization response.
 * @module
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { systemTimeProvider, type TimeProvider } from "../../src/stream/time_provider.ts";
import { AuthError } from "../../src/auth/errors.ts";

/** Options of {@linkcode startLoopbackRedirect}. */
export interface LoopbackRedirectOptions {
  /** Port to listen on; default 0 (a free port chosen by the system). */
  port?: number;
  /**
   * Path of the redirect URI. Default `/callback`.
   * @default /callback
   */
  path?: string;
  /**
   * Shows the authorization URL to the user: open a browser, or print it. Default: writes
   * "Open this URL to authorize: <url>" to stderr.
   * @default writes the URL to stderr
   */
  open?: (url: URL) => void | Promise<void>;
  /**
   * How long to wait for the browser to come back, in ms. Default 300 000 (5 minutes).
   * @default 300000 (5 minutes)
   */
  callbackTimeout?: number;
  /**
   * Clock for the timeout. Default: the system clock.
   * @default the system clock
   */
  time?: TimeProvider;
  /** The page shown in the browser after the redirect. */
  successPage?: string;
}

/** A listening loopback redirect; pass `redirectUri` and `redirectTo` to `OAuthClient`. */
export interface LoopbackRedirect {
  /** `http://127.0.0.1:<port><path>`. */
  readonly redirectUri: string;
  /**
   * Shows `url` (through `open`) and resolves with the callback URL of the next request to the
   * redirect path whose `state` is `url`'s (others get 400 and the wait goes on); rejects with `AuthError` (code `authorization_response`) after `callbackTimeout`.
   */
  redirectTo(url: URL): Promise<URL>;
  /** Stops listening. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Starts the loopback listener. Requests to other paths get 404; the listener stays up until
 * `close()`, so a step-up authorization can use it again.
 *
 * @example
 * ```ts
 * await using loopback = await startLoopbackRedirect({ open: (url) => console.error(`Open ${url}`) });
 * const authFetch = withOAuth(fetch, { redirectUri: loopback.redirectUri, redirectTo: (url) => loopback.redirectTo(url) });
 * ```
 */
export async function startLoopbackRedirect(
  options: LoopbackRedirectOptions = {},
): Promise<LoopbackRedirect> {
  const path = options.path ?? "/callback";
  const time = options.time ?? systemTimeProvider;
  const timeout = options.callbackTimeout ?? 300_000;
  const open = options.open ??
    ((url: URL) => void process.stderr.write(`Open this URL to authorize: ${url.href}\n`));
  let waiter: { state: string | null; deliver: (url: URL) => void } | undefined;
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", `http://127.0.0.1`);
    if (url.pathname !== path || waiter === undefined) {
      response.writeHead(404, { "content-type": "text/plain" }).end("Not found");
      return;
    }
    // Any local process can request the callback: one whose state is not the authorization's is
    // refused and the wait goes on, so it cannot abort (or answer) the user's login.
    if (waiter.state !== null && url.searchParams.get("state") !== waiter.state) {
      response.writeHead(400, { "content-type": "text/plain" }).end(
        "This callback's state does not match the authorization in progress",
      );
      return;
    }
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(
      options.successPage ?? "<p>Authorization complete. You can close this window.</p>",
    );
    const { deliver } = waiter;
    waiter = undefined;
    deliver(new URL(`${redirectUri}${url.search}`));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const redirectUri = `http://127.0.0.1:${port}${path}`;
  const close = (): Promise<void> =>
    new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    });
  return {
    redirectUri,
    async redirectTo(url) {
      if (waiter !== undefined) {
        throw new AuthError(
          "authorization_response",
          `An authorization is already waiting on ${redirectUri}`,
        );
      }
      const callback = new Promise<URL>((resolve, reject) => {
        const timer = time.setTimer(() => {
          waiter = undefined;
          reject(
            new AuthError(
              "authorization_response",
              `No authorization response reached ${redirectUri} within callbackTimeout (${timeout} ms)`,
            ),
          );
        }, timeout);
        waiter = {
          state: url.searchParams.get("state"),
          deliver: (received) => {
            timer.cancel();
            resolve(received);
          },
        };
      });
      await open(url);
      return callback;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
