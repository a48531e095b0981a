import { SpanKind, SpanStatusCode, TraceFlags } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { Context as ActivityContext } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ActivityInboundCallsInterceptor, ActivityInterceptors, Next } from '@temporalio/worker';
import { silentLogger } from '../../observability/logger';
import { createWorkerMetrics } from '../../observability/metrics';
import { FAILURE_OUTLINE_ATTRIBUTE, inSpan, recordSpan, setupTracing } from '../../observability/tracing';
import { workerInstrumentation, workflowExporterSinks } from '../../observability/worker-options';

/** Text a failure may quote from what the user wrote (a tool echoing its arguments, a model's output). */
const USER_TEXT = 'ORD-SECRET-9';

const toolFailure = () =>
  ApplicationFailure.create({
    type: 'TOOL_HTTP_ERROR',
    message: `orders.lookup: order ${USER_TEXT} not found`,
    nonRetryable: true,
    cause: new Error(`upstream said ${USER_TEXT}`),
  });

/** One activity attempt through the worker's interceptors: the SDK's OpenTelemetry one outside the step observer. */
async function runActivity(withoutFailureText: boolean): Promise<void> {
  const ctx = {
    info: {
      activityType: 'McpToolCall',
      activityId: '7',
      attempt: 1,
      inWorkflow: true,
      workflowExecution: { workflowId: 'turn-c-1', runId: 'r' },
    },
  } as unknown as ActivityContext;
  const deps = { logger: silentLogger(), metrics: createWorkerMetrics(), withoutFailureText };
  const factories = workerInstrumentation(deps, 'bundle').interceptors?.activity ?? [];
  const [outer, inner] = factories.map((make) => (make(ctx) as ActivityInterceptors).inbound);
  const failing: Next<ActivityInboundCallsInterceptor, 'execute'> = () => Promise.reject(toolFailure());
  const input = { args: [{ turn: { conversationId: 'c', turnNumber: 1 } }], headers: {} };
  await outer?.execute?.(input, (i) => inner?.execute?.(i, failing) ?? failing(i)).catch(() => undefined);
}

/** A span of the workflow sandbox as its interceptors record a failed turn, handed out through the exporter sink. */
function exportWorkflowSpan(): void {
  const now: [number, number] = [Math.floor(Date.now() / 1000), 0];
  const span = {
    name: 'RunWorkflow:conversationTurnV3',
    kind: SpanKind.INTERNAL,
    spanContext: { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: TraceFlags.SAMPLED },
    startTime: now,
    endTime: now,
    status: { code: SpanStatusCode.ERROR, message: `turn failed: ${USER_TEXT}` },
    attributes: {},
    links: [],
    events: [
      {
        name: 'exception',
        time: now,
        attributes: {
          'exception.type': 'ApplicationFailure',
          'exception.message': `turn failed: ${USER_TEXT}`,
          'exception.stacktrace': `ApplicationFailure: turn failed: ${USER_TEXT}\n    at turn`,
        },
      },
    ],
    duration: [0, 0],
    ended: true,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
    instrumentationLibrary: { name: '@temporalio/interceptor-workflow' },
  };
  const sink = workflowExporterSinks()['exporter'] as unknown as {
    export: { fn(info: object, spans: unknown[]): void };
  };
  sink.export.fn({ workflowId: 'turn-c-1' }, [span]);
}

/** The failed spans of a turn's pieces: an LLM call's (inSpan), a step's in a step run (recordSpan), the SDK's. */
async function failedSpans(withoutFailureText: boolean): Promise<ReadableSpan[]> {
  const exporter = new InMemorySpanExporter();
  const spanProcessor = new SimpleSpanProcessor(exporter);
  const tracing = setupTracing({ serviceName: 'span-failure-text-test', spanProcessor, withoutFailureText });
  try {
    await inSpan('llm plan', {}, () => Promise.reject(toolFailure())).catch(() => undefined);
    recordSpan('step Memory', {}, Date.now() - 3, Date.now(), toolFailure());
    await runActivity(withoutFailureText);
    exportWorkflowSpan();
    return exporter.getFinishedSpans();
  } finally {
    await tracing?.shutdown();
  }
}

/** What a span says of its failure, read as an exporter reads it. */
const failureOf = (span: ReadableSpan) => ({
  name: span.name,
  status: span.status,
  attributes: span.attributes,
  events: span.events.map((e) => ({ name: e.name, attributes: e.attributes })),
});

const NAMES = ['llm plan', 'step Memory', 'RunActivity:McpToolCall', 'RunWorkflow:conversationTurnV3'];

describe("a failed span's exception and status (OpenTelemetry)", () => {
  it('with payload encryption keys, records the failure outline on every span, never its message or stack', async () => {
    const spans = (await failedSpans(true)).map(failureOf);
    expect(spans.map((s) => s.name).sort()).toEqual([...NAMES].sort());
    expect(JSON.stringify(spans)).not.toContain(USER_TEXT);
    for (const span of spans) {
      expect(span.status).toEqual({ code: SpanStatusCode.ERROR });
      expect(span.events).toEqual([
        { name: 'exception', attributes: expect.objectContaining({ 'exception.type': 'ApplicationFailure' }) },
      ]);
    }
    const outline = {
      type: 'ApplicationFailure',
      failureType: 'TOOL_HTTP_ERROR',
      nonRetryable: true,
      cause: { type: 'Error' },
    };
    const byName = (name: string) => spans.find((s) => s.name === name);
    for (const name of ['llm plan', 'step Memory']) {
      const outlined = byName(name)?.events[0]?.attributes?.[FAILURE_OUTLINE_ATTRIBUTE];
      expect(JSON.parse(String(outlined))).toEqual(outline);
    }
    // The SDK's span records the error itself; the step observer inside it says what it was.
    const activity = byName('RunActivity:McpToolCall')?.attributes[FAILURE_OUTLINE_ATTRIBUTE];
    expect(JSON.parse(String(activity))).toEqual(outline);
  });

  it('without keys, keeps the exception message and stack as before', async () => {
    const spans = (await failedSpans(false)).map(failureOf);
    expect(spans.map((s) => s.name).sort()).toEqual([...NAMES].sort());
    for (const span of spans) {
      const [exception] = span.events;
      expect(String(exception?.attributes?.['exception.message'])).toContain(USER_TEXT);
      expect(exception?.attributes?.['exception.stacktrace']).toEqual(expect.any(String));
      expect(span.attributes[FAILURE_OUTLINE_ATTRIBUTE]).toBeUndefined();
    }
    const activity = spans.find((s) => s.name === 'RunActivity:McpToolCall');
    expect(activity?.status.message).toContain(USER_TEXT);
  });
});
