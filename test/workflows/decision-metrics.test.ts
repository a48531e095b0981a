import { createWorkerMetrics, type WorkerMetrics } from '../../observability/metrics';
import { failingAfterWork } from '../support/failing-steps';
import { decisionLog, stepRuns } from '../support/history';
import { callTool, maxLoops, orderConfig } from '../support/order-config';
import { parseMetrics, sumOf } from '../support/prometheus-text';
import { WorkflowHarness } from '../support/workflow-harness';

const MESSAGE = 'Check order ORD-7017 status and trace.';

/**
 * The loop-limit and guardrail counters on the current workflow type, where a driver decision rides on the
 * next step's input (a step run's, mostly) and is recorded there: counted once, also when that step is retried.
 */
describe('driver decisions in the worker metrics (conversationTurnV3)', () => {
  let h: WorkflowHarness;
  let metrics: WorkerMetrics;
  /** McpFinalize fails this many more times after doing its work (its rows written, the run failed). */
  const finalizeFailures = { left: 0 };

  beforeAll(async () => {
    metrics = createWorkerMetrics();
    h = await WorkflowHarness.start({
      activities: failingAfterWork('McpFinalize', finalizeFailures),
      observe: { metrics },
    });
  });
  afterAll(async () => h?.stop());
  beforeEach(() => {
    h.mcp.llm.setScript([]);
    finalizeFailures.left = 0;
  });
  afterEach(() => expect(h.mcp.llm.unconsumed()).toEqual([]));

  const counters = async () => {
    const m = parseMetrics(await metrics.registry.metrics());
    return {
      loopLimit: sumOf(m, 'convengine_loop_limit_stops_total'),
      blocked: sumOf(m, 'convengine_guardrail_blocks_total', { reason: 'TOOL_NOT_IN_SCOPE' }),
    };
  };

  async function turn(script: object[]) {
    h.mcp.llm.setScript(script);
    const reply = await h.send({ message: MESSAGE });
    if (reply.kind !== 'COMPLETED') throw new Error(`expected a completed turn, got ${JSON.stringify(reply)}`);
    return reply;
  }

  it('counts a loop-limit stop once', async () => {
    await h.mcp.configure(orderConfig({ configs: [maxLoops(1)] }));
    const before = await counters();
    const reply = await turn([callTool('mock.order.status', { orderId: 'ORD-7017' })]);
    const [started] = await h.history(reply.ref.workflowId);
    expect(started?.workflowExecutionStartedEventAttributes?.workflowType?.name).toBe('conversationTurnV3');
    expect(reply.result.outcome).toBe('LOOP_LIMIT');
    expect(await counters()).toEqual({ loopLimit: before.loopLimit + 1, blocked: before.blocked });
  });

  it('counts a guardrail block once, by its reason', async () => {
    await h.mcp.configure(orderConfig());
    const before = await counters();
    const reply = await turn([callTool('loan.application.submit', { customerId: 'C-1' })]);
    expect(reply.result.outcome).toBe('GUARDRAIL_BLOCKED');
    expect(await counters()).toEqual({ loopLimit: before.loopLimit, blocked: before.blocked + 1 });
  });

  it('counts a decision once when the step run that records it fails after writing it and is retried', async () => {
    await h.mcp.configure(orderConfig({ configs: [maxLoops(1)] }));
    const before = await counters();
    finalizeFailures.left = 2;
    const reply = await turn([callTool('mock.order.status', { orderId: 'ORD-7017' })]);
    expect(reply.result.outcome).toBe('LOOP_LIMIT');
    const history = await h.history(reply.ref.workflowId);
    expect(decisionLog(history)).toEqual(['LOOP_LIMIT: reason=MCP_TOOL_MAX_LOOPS limit=1']);
    // The run that carried the decision ran three times: its first two attempts wrote the row, then failed.
    expect(stepRuns(history).find((a) => a.type === 'McpFinalize')).toMatchObject({ attempt: 3 });
    expect(finalizeFailures.left).toBe(0);
    expect((await counters()).loopLimit).toBe(before.loopLimit + 1);
    // The failed attempts are observed under the step that failed, not the run that held it.
    const m = parseMetrics(await metrics.registry.metrics());
    const errors = (step: string) => sumOf(m, 'convengine_step_duration_seconds_count', { step, outcome: 'error' });
    expect([errors('McpFinalize'), errors('LocalSteps')]).toEqual([2, 0]);
  });
});
