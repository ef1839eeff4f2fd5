/**
 * Liveness and readiness probes of `serve()` on every runtime: `GET /livez` answers 200 while the
 * process serves at all; `GET /readyz` answers 200 until `close()` starts, then 503 at once (before
 * the listener stops, and for `readinessGrace` ms while everything else is still served), so a load
 * balancer or orchestrator stops sending new work during the drain.
 * @module
 */

/** The probe paths and the readiness state of one server. */
export class HealthChecks {
  readonly livenessPath: string | null;
  readonly readinessPath: string | null;
  /** False from the moment `close()` starts. */
  ready = true;

  constructor(livenessPath: string | null, readinessPath: string | null) {
    this.livenessPath = livenessPath;
    this.readinessPath = readinessPath;
  }

  /** The probe's answer when `method` and `url` (path and query, or a full URL) name a probe; else `undefined`. */
  answer(method: string, url: string): { status: number; body: string } | undefined {
    if (method !== "GET" && method !== "HEAD") return undefined;
    let path = url;
    if (!path.startsWith("/")) {
      try {
        path = new URL(url).pathname;
      } catch {
        return undefined;
      }
    }
    const query = path.indexOf("?");
    if (query !== -1) path = path.slice(0, query);
    if (path === this.livenessPath) return { status: 200, body: "live\n" };
    if (path === this.readinessPath) {
      return this.ready ? { status: 200, body: "ready\n" } : { status: 503, body: "draining\n" };
    }
    return undefined;
  }

  /** `handler` with the probes answered in front of it (for runtimes that hand over web `Request`s). */
  wrap<H extends (request: Request) => Response | Promise<Response>>(handler: H): H {
    if (this.livenessPath === null && this.readinessPath === null) return handler;
    return ((request: Request) => {
      const probe = this.answer(request.method, request.url);
      return probe === undefined ? handler(request) : probeResponse(probe, request.method);
    }) as H;
  }
}

/** A probe's answer as a `Response` (no body for HEAD, never cached). */
export function probeResponse(probe: { status: number; body: string }, method: string): Response {
  return new Response(method === "HEAD" ? null : probe.body, {
    status: probe.status,
    headers: { "content-type": "text/plain", "cache-control": "no-store" },
  });
}
