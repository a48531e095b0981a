import { createLogger } from '../../observability/logger';
import { createWorkerMetrics } from '../../observability/metrics';
import { failingAfterWork } from '../support/failing-steps';
import { captureLog } from '../support/log-capture';
import { callTool, maxLoops, orderConfig } from '../support/order-config';
import { WorkflowHarness } from '../support/workflow-harness';

const MESSAGE = 'Check order ORD-7017 status and trace.';

/** The worker's log, the SDK's runtime lines included, as a production worker writes it (installTemporalRuntime). */
describe('a failed step in the worker log', () => {
  const log = captureLog();
  let h: WorkflowHarness;
  /** McpFinalize fails this many more times after doing its work. */
  const finalizeFailures = { left: 0 };

  beforeAll(async () => {
    const logger = createLogger({ level: 'info', format: 'json', name: 'worker', destination: log.stream });
    h = await WorkflowHarness.start({
      activities: failingAfterWork('McpFinalize', finalizeFailures),
      observe: { metrics: createWorkerMetrics(), logger },
    });
  });
  afterAll(async () => h?.stop());
  afterEach(() => expect(h.mcp.llm.unconsumed()).toEqual([]));

  const problems = (workflowId: string) =>
    log.lines().filter((l) => l['workflowId'] === workflowId && (l['level'] === 'warn' || l['level'] === 'error'));

  it('is one line, ours, with the turn, the run and the step that failed', async () => {
    await h.mcp.configure(orderConfig({ configs: [maxLoops(1)] }));
    h.mcp.llm.setScript([callTool('mock.order.status', { orderId: 'ORD-7017' })]);
    finalizeFailures.left = 1;
    const reply = await h.send({ message: MESSAGE });
    expect(reply.kind).toBe('COMPLETED');
    expect(finalizeFailures.left).toBe(0);
    const lines = problems(reply.ref.workflowId);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'warn',
        msg: 'step failed',
        conversationId: reply.ref.conversationId,
        turn: 1,
        step: 'LocalSteps',
        failedStep: 'McpFinalize',
        attempt: 1,
        runId: reply.ref.runId,
        activityId: expect.any(String),
        errorType: 'Error',
        durationMs: expect.any(Number),
      }),
    ]);
    expect(lines[0]?.['err']).toMatchObject({
      type: 'ApplicationFailure',
      stack: expect.stringContaining('caused by'),
    });
  });
});
