import { context, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  NoopSpanProcessor,
  type ReadableSpan,
  type Span as SdkSpan,
  type SpanProcessor,
  type TimedEvent,
} from '@opentelemetry/sdk-trace-base';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { failureOutline } from './failure-outline';

export const TRACER_NAME = 'convengine';

export interface Tracing {
  resource: Resource;
  /** Where every span ends, the workflow sandbox's too (worker-options.ts workflowExporterSinks). */
  spanProcessor: SpanProcessor;
  /** Spans keep a failure's outline only (failure-outline.ts withoutFailureText). */
  withoutFailureText: boolean;
  shutdown(): Promise<void>;
}

export interface TracingOptions {
  serviceName: string;
  /** OTEL_EXPORTER_OTLP_ENDPOINT: spans go to `<endpoint>/v1/traces` over OTLP/HTTP. */
  otlpEndpoint?: string;
  /** Tests pass an in-memory exporter's processor instead. */
  spanProcessor?: SpanProcessor;
  /**
   * With PAYLOAD_ENCRYPTION_KEYS set (failure-outline.ts withoutFailureText): a failed span records the failure's
   * outline, never its message or stack, whoever recorded it (ours, the Temporal SDK's interceptors, the workflow's).
   */
  withoutFailureText?: boolean;
}

/** The exception event's attributes that hold a failure's text (OpenTelemetry's semantic conventions). */
const EXCEPTION_TEXT = new Set(['exception.message', 'exception.stacktrace']);

/** An exception event's attribute for failureOutline's JSON: the failure's classes, failure types and retryability. */
export const FAILURE_OUTLINE_ATTRIBUTE = 'convengine.failure.outline';

function withoutExceptionText(event: TimedEvent): TimedEvent {
  if (event.name !== 'exception' || !event.attributes) return event;
  const kept = Object.entries(event.attributes).filter(([key]) => !EXCEPTION_TEXT.has(key));
  return { ...event, attributes: Object.fromEntries(kept) };
}

/**
 * Hands every ended span on without a failure's text: its exception events lose their message and stack and its
 * status its message. The spans of the Temporal SDK's interceptors (RunActivity, the workflow's, sent out of the
 * sandbox through the exporter sink) record `err.message` and `err.stack`, which may quote what a user wrote.
 */
class FailureTextFreeProcessor implements SpanProcessor {
  constructor(private readonly next: SpanProcessor) {}

  onStart(span: SdkSpan, parent: Context): void {
    this.next.onStart(span, parent);
  }

  onEnd(span: ReadableSpan): void {
    // A view over the ended span (its getters and spanContext() read through the prototype), not a copy of it.
    const status = { code: span.status.code };
    this.next.onEnd(
      Object.create(span, { status: { value: status }, events: { value: span.events.map(withoutExceptionText) } })
    );
  }

  forceFlush(): Promise<void> {
    return this.next.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.next.shutdown();
  }
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
  const withoutFailureText = options.withoutFailureText ?? false;
  const processor = withoutFailureText ? new FailureTextFreeProcessor(spanProcessor) : spanProcessor;
  const resource = new Resource({ 'service.name': options.serviceName });
  const provider = new BasicTracerProvider({ resource, spanProcessors: [processor] });
  provider.register({
    contextManager: new AsyncLocalStorageContextManager(),
    propagator: new W3CTraceContextPropagator(),
  });
  const tracing: Tracing = {
    resource,
    spanProcessor: processor,
    withoutFailureText,
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

/** With withoutFailureText, the exception event says what failed by failureOutline, as the `step failed` line does. */
function failSpan(span: Span, err: unknown): void {
  if (active?.withoutFailureText) {
    const outline = failureOutline(err);
    span.addEvent('exception', {
      'exception.type': outline.type,
      [FAILURE_OUTLINE_ATTRIBUTE]: JSON.stringify(outline),
    });
  } else {
    span.recordException(err instanceof Error ? err : String(err));
  }
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
