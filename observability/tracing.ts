import { context, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  NoopSpanProcessor,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';

export const TRACER_NAME = 'convengine';

export interface Tracing {
  resource: Resource;
  spanProcessor: SpanProcessor;
  shutdown(): Promise<void>;
}

export interface TracingOptions {
  serviceName: string;
  /** OTEL_EXPORTER_OTLP_ENDPOINT: spans go to `<endpoint>/v1/traces` over OTLP/HTTP. */
  otlpEndpoint?: string;
  /** Tests pass an in-memory exporter's processor instead. */
  spanProcessor?: SpanProcessor;
}

let active: Tracing | null = null;

/**
 * Registers the process-wide tracer provider, once: with an OTLP endpoint (or a test processor)
 * spans are recorded and exported; without one nothing is set up and every span is a no-op.
 */
export function setupTracing(options: TracingOptions): Tracing | null {
  if (active) return active;
  const spanProcessor =
    options.spanProcessor ??
    (options.otlpEndpoint
      ? new BatchSpanProcessor(new OTLPTraceExporter({ url: `${options.otlpEndpoint.replace(/\/+$/, '')}/v1/traces` }))
      : null);
  if (!spanProcessor) return null;
  const resource = new Resource({ 'service.name': options.serviceName });
  const provider = new BasicTracerProvider({ resource, spanProcessors: [spanProcessor] });
  provider.register({
    contextManager: new AsyncLocalStorageContextManager(),
    propagator: new W3CTraceContextPropagator(),
  });
  const tracing: Tracing = {
    resource,
    spanProcessor,
    async shutdown() {
      // The global provider is released even when the last export fails, so a later setup can register again.
      try {
        await provider.shutdown();
      } finally {
        trace.disable();
        context.disable();
        active = null;
      }
    },
  };
  active = tracing;
  return tracing;
}

export function activeTracing(): Tracing | null {
  return active;
}

/** For the workflow exporter sink when a pre-built bundle carries the workflow interceptors but tracing is off. */
export const noopSpanProcessor: SpanProcessor = new NoopSpanProcessor();

/** Temporal client interceptors: the workflow start carries the caller's span (the HTTP request) in its headers. */
export function tracingClientInterceptors(): { workflow: OpenTelemetryWorkflowClientInterceptor[] } {
  return { workflow: active ? [new OpenTelemetryWorkflowClientInterceptor()] : [] };
}

/**
 * A span recorded after the fact, as a child of the active span: the steps of a step run
 * (core/turn/step-runs.ts) run inside one activity, which times each of them. With `error`, the
 * span records it and ends in error, as inSpan's does.
 */
export function recordSpan(
  name: string,
  attributes: Attributes,
  startMs: number,
  endMs: number,
  error?: unknown
): void {
  const span = trace.getTracer(TRACER_NAME).startSpan(name, { attributes, startTime: startMs }, context.active());
  if (error !== undefined) failSpan(span, error);
  span.end(endMs);
}

function failSpan(span: Span, err: unknown): void {
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.name : 'error' });
}

/** Runs `work` in a child span of the active one; the span records the error and ends either way. */
export async function inSpan<T>(name: string, attributes: Attributes, work: (span: Span) => Promise<T>): Promise<T> {
  return trace.getTracer(TRACER_NAME).startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work(span);
    } catch (err) {
      failSpan(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}
