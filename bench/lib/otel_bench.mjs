// Shared by the OpenTelemetry benches (bench/otel.mjs, otel_perf.mjs, otel_profile.mjs): the command
// line's `--name=value` options, and the environment of a bench/http/otel_server.mjs server in one
// mode, exporting over OTLP/HTTP JSON to the bench's sink at `endpoint`.

/** `--name=value` from this process's arguments, else `fallback`. */
export function option(name, fallback) {
  return process.argv.slice(2).find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
}

/** The environment of an otel_server.mjs in `mode` (none, ctx, api, sdk, …) exporting to `endpoint`. */
export function otelServerEnv(mode, endpoint) {
  return {
    BENCH_OTEL: mode,
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_METRIC_EXPORT_INTERVAL: "1000",
    OTEL_LOGS_EXPORTER: "none",
    OTEL_SERVICE_NAME: `bench-${mode}`,
  };
}
