import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { setupTracing, type Tracing } from '../../observability/tracing';
import { TelemetryStack } from '../support/telemetry-stack';

interface SpanNode {
  name: string;
  attributes: ReadableSpan['attributes'];
  children: SpanNode[];
}

function spanTree(spans: ReadableSpan[]): SpanNode[] {
  const nodes = new Map<string, SpanNode>();
  for (const s of spans) nodes.set(s.spanContext().spanId, { name: s.name, attributes: s.attributes, children: [] });
  const roots: SpanNode[] = [];
  for (const s of [...spans].sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1])) {
    const node = nodes.get(s.spanContext().spanId) as SpanNode;
    const parent = s.parentSpanId ? nodes.get(s.parentSpanId) : undefined;
    (parent ? parent.children : roots).push(node);
  }
  return roots;
}

/** Every node named `name` below `node`. */
function findAll(node: SpanNode, name: string | RegExp): SpanNode[] {
  const here = typeof name === 'string' ? node.name === name : name.test(node.name);
  return [...(here ? [node] : []), ...node.children.flatMap((c) => findAll(c, name))];
}

/** Waits (bounded) for the workflow spans, which leave the sandbox through a sink after the turn replies. */
async function spansWhen(exporter: InMemorySpanExporter, done: (spans: ReadableSpan[]) => boolean) {
  for (let i = 0; i < 100 && !done(exporter.getFinishedSpans()); i++) await new Promise((r) => setTimeout(r, 100));
  return exporter.getFinishedSpans();
}

describe('one trace per turn: HTTP request → turn workflow → step activities → LLM call → tool call', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing | null;
  let stack: TelemetryStack;

  beforeAll(async () => {
    tracing = setupTracing({ serviceName: 'convengine-test', spanProcessor: new SimpleSpanProcessor(exporter) });
    stack = await TelemetryStack.start();
  });

  afterAll(async () => {
    await stack?.stop();
    await tracing?.shutdown();
  });

  it('records the span tree of the order-diagnostics seed turn', async () => {
    const turn = await stack.seedTurn();
    expect(turn.status).toBe(200);
    const spans = await spansWhen(
      exporter,
      (all) => all.some((s) => s.name === 'RunWorkflow:conversationTurn') && all.some((s) => s.name.startsWith('POST '))
    );
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);

    const roots = spanTree(spans);
    expect(roots.map((r) => r.name)).toEqual(['POST /api/v1/conversation/message']);
    const http = roots[0] as SpanNode;
    expect(http.attributes).toMatchObject({
      'http.route': '/api/v1/conversation/message',
      'http.response.status_code': 200,
    });

    const [workflow] = findAll(http, 'RunWorkflow:conversationTurnV3');
    expect(workflow).toBeDefined();
    const steps = findAll(workflow as SpanNode, /^RunActivity:/);
    const stepNames = new Set(steps.map((s) => s.name));
    for (const step of ['McpPlan', 'McpToolCall']) expect(stepNames).toContain(`RunActivity:${step}`);
    // Steps that ran in a step run are spans of their own inside the run's, under their step names.
    const runs = steps.filter((s) => s.name === 'RunActivity:LocalSteps' || s.name === 'RunActivity:RegularSteps');
    const inRuns = runs.flatMap((run) => findAll(run, /^step /));
    expect(inRuns.map((s) => s.name)).toEqual(expect.arrayContaining(['step McpFinalize', 'step PipelineEnd']));
    expect(inRuns.find((s) => s.name === 'step McpFinalize')?.attributes).toMatchObject({
      'convengine.step': 'McpFinalize',
      'convengine.conversation_id': turn.body['conversationId'],
      'convengine.turn': 1,
      'convengine.intent': 'ORDER_DIAGNOSTICS',
      'convengine.state': 'COMPLETED',
    });

    const plans = steps.filter((s) => s.name === 'RunActivity:McpPlan');
    expect(plans[0]?.attributes).toMatchObject({
      'convengine.step': 'McpPlan',
      'convengine.intent': 'ORDER_DIAGNOSTICS',
    });
    const llm = plans.flatMap((p) => findAll(p, /^llm /));
    expect(llm.length).toBe(plans.length);
    expect(llm[0]?.attributes).toMatchObject({
      'convengine.llm.success': true,
      'convengine.intent': 'ORDER_DIAGNOSTICS',
    });
    expect(llm[0]?.attributes['convengine.llm.output_tokens']).toBeGreaterThan(0);

    const tools = steps.filter((s) => s.name === 'RunActivity:McpToolCall').flatMap((s) => findAll(s, /^tool /));
    expect(tools.map((t) => t.attributes['convengine.tool.code'])).toEqual([
      'mock.order.status',
      'mock.order.async.trace',
    ]);
    for (const tool of tools) {
      expect(tool.attributes).toMatchObject({
        'convengine.tool.outcome': 'ok',
        'convengine.guardrail.outcome': 'allowed',
      });
    }
  });
});
