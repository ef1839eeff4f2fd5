/**
 * A minimal OTLP/HTTP receiver for the JSON encoding on 127.0.0.1: collects what exporters POST to
 * `/v1/traces` and `/v1/metrics`, and resolves waits on what arrives (a readiness signal, no polling).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** One span as OTLP JSON carries it (ids in hex), with its resource's service name. */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  service: string | undefined;
}

interface KeyValue {
  key: string;
  value: Record<string, unknown>;
}

function attributesOf(list: KeyValue[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of list ?? []) out[key] = Object.values(value)[0];
  return out;
}

export class OtlpReceiver {
  readonly spans: OtlpSpan[] = [];
  readonly metricNames = new Set<string>();
  /** Content types of the POSTs received. */
  readonly contentTypes = new Set<string>();
  readonly #waits: { test: () => boolean; resolve: () => void }[] = [];
  readonly #server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (d: string) => (body += d)).on("end", () => {
      this.contentTypes.add(String(req.headers["content-type"]));
      try {
        this.#take(req.url ?? "", JSON.parse(body));
      } catch {
        // Not JSON (protobuf): counted by content type only.
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
      for (const wait of [...this.#waits]) {
        if (wait.test()) {
          this.#waits.splice(this.#waits.indexOf(wait), 1);
          wait.resolve();
        }
      }
    });
  });
  url = "";

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  /** Resolves once `test` holds over what has arrived. */
  until(test: () => boolean): Promise<void> {
    if (test()) return Promise.resolve();
    return new Promise((resolve) => this.#waits.push({ test, resolve }));
  }

  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  #take(path: string, body: Record<string, unknown>): void {
    if (path.endsWith("/v1/traces")) {
      for (const rs of (body.resourceSpans ?? []) as Record<string, unknown>[]) {
        const resource = attributesOf((rs.resource as { attributes?: KeyValue[] } | undefined)?.attributes);
        for (const ss of (rs.scopeSpans ?? []) as { spans?: Record<string, unknown>[] }[]) {
          for (const span of ss.spans ?? []) {
            this.spans.push({
              traceId: span.traceId as string,
              spanId: span.spanId as string,
              parentSpanId: (span.parentSpanId as string | undefined) || undefined,
              name: span.name as string,
              kind: span.kind as number,
              attributes: attributesOf(span.attributes as KeyValue[]),
              service: resource["service.name"] as string | undefined,
            });
          }
        }
      }
    } else if (path.endsWith("/v1/metrics")) {
      for (
        const rm of (body.resourceMetrics ?? []) as { scopeMetrics?: { metrics?: { name: string }[] }[] }[]
      ) {
        for (const sm of rm.scopeMetrics ?? []) {
          for (const m of sm.metrics ?? []) this.metricNames.add(m.name);
        }
      }
    }
  }
}
