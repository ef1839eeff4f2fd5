/**
 * The stock OpenTelemetry SDK registered globally with in-memory exporters, for the telemetry tests:
 * finished spans, and metrics collected on demand.
 */
import { context, metrics, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { type DataPoint, type Histogram, MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";

class ManualReader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** The registered SDK of one test file. */
export interface OtelKit {
  spans: InMemorySpanExporter;
  /** Finished spans named `name`. */
  spansNamed(name: string): ReadableSpan[];
  /** Data points of histogram `name`. */
  histogram(name: string): Promise<DataPoint<Histogram>[]>;
  reset(): void;
  shutdown(): Promise<void>;
}

/** Registers tracer, meter, context manager and W3C propagator globally. */
export function registerOtel(): OtelKit {
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  let reader = new ManualReader();
  let meterProvider = new MeterProvider({ readers: [reader] });
  const manager = new AsyncLocalStorageContextManager().enable();
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  context.setGlobalContextManager(manager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  return {
    spans,
    spansNamed: (name) => spans.getFinishedSpans().filter((s) => s.name === name),
    async histogram(name) {
      const { resourceMetrics } = await reader.collect();
      const points: DataPoint<Histogram>[] = [];
      for (const scope of resourceMetrics.scopeMetrics) {
        for (const metric of scope.metrics) {
          if (metric.descriptor.name === name) points.push(...(metric.dataPoints as DataPoint<Histogram>[]));
        }
      }
      return points;
    },
    reset() {
      spans.reset();
      metrics.disable();
      reader = new ManualReader();
      meterProvider = new MeterProvider({ readers: [reader] });
      metrics.setGlobalMeterProvider(meterProvider);
    },
    async shutdown() {
      trace.disable();
      metrics.disable();
      context.disable();
      propagation.disable();
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}
