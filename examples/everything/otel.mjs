// @ts-check
// The OpenTelemetry Node SDK for the everything server (a dev dependency of this repository, never
// the library's): started when OTEL_EXPORTER_OTLP_ENDPOINT is set, configured by the standard OTEL_*
// variables alone: traces and metrics over OTLP/HTTP with OTEL_EXPORTER_OTLP_PROTOCOL ("http/json"
// or "http/protobuf", the default), metrics every OTEL_METRIC_EXPORT_INTERVAL ms (default 60 000),
// OTEL_SERVICE_NAME as the service. The library finds the SDK through @opentelemetry/api's global
// registry; server.mjs imports this module dynamically, so the SDK is loaded only when it is used.
import { NodeSDK } from "@opentelemetry/sdk-node";

/**
 * Starts the SDK and returns what flushes it: `shutdown()` exports every span and metric still
 * buffered, then stops the exporters (call it before the process exits, e.g. on SIGTERM).
 * @returns {{ shutdown(): Promise<void> }}
 */
export function startTelemetry() {
  const sdk = new NodeSDK({ instrumentations: [] });
  sdk.start();
  let stopping;
  return {
    shutdown() {
      stopping ??= sdk.shutdown().catch((error) => {
        console.error(`everything: OpenTelemetry shutdown failed: ${error.message}`);
      });
      return stopping;
    },
  };
}
