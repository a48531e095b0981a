import { NativeConnection, Worker } from '@temporalio/worker';
import { createLogger, silentLogger } from '../../observability/logger';
import { createWorkerMetrics } from '../../observability/metrics';
import { installTemporalRuntime } from '../../observability/temporal-runtime';
import { failingForGood } from '../support/failing-steps';
import { TASK_FAILURE_TEXT } from '../support/failing-task-workflow';
import { captureLog } from '../support/log-capture';
import { orderConfig } from '../support/order-config';
import { WorkflowHarness } from '../support/workflow-harness';

/** What the failing step's message says (failingForGood): text a failure may carry, as a tool's echoing its input. */
const FAILURE_TEXT = 'refused the request';

/** The log's lines that `match`, once `done` holds of them (or 10 s passed). */
async function linesOnce(
  log: ReturnType<typeof captureLog>,
  match: (line: Record<string, unknown>) => boolean,
  done: (lines: Record<string, unknown>[]) => boolean
): Promise<Record<string, unknown>[]> {
  for (let waited = 0; ; waited += 50) {
    const lines = log.lines().filter(match);
    if (done(lines) || waited > 10_000) return lines;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The SDK's lines of a failed turn (its workflow's, its activities'). */
const SDK_FAILURE_LINES: unknown[] = ['Workflow failed', 'Activity failed'];

/** The SDK's failure lines of the turn, once its "Workflow failed" is written (the workflow's logs come after its task). */
function sdkFailureLines(workflowId: string, log: ReturnType<typeof captureLog>): Promise<Record<string, unknown>[]> {
  return linesOnce(
    log,
    (l) => l['sdkComponent'] !== undefined && l['workflowId'] === workflowId && SDK_FAILURE_LINES.includes(l['msg']),
    (lines) => lines.some((l) => l['msg'] === 'Workflow failed')
  );
}

/**
 * With PAYLOAD_ENCRYPTION_KEYS set the conversation is kept from whoever lacks the key (docs/security.md §8), and the
 * SDK's own lines (its WARN "Workflow failed", its "Activity failed", core's "Failing workflow task") printed a
 * failure's message and stack in clear. A worker with keys (worker/listeners.ts) installs the SDK's runtime so that
 * they keep the failure's outline only: its types, whether it may be retried, the workflow, activity and attempt fields.
 */
describe("the SDK's failure lines of a worker with payload encryption keys", () => {
  const log = captureLog();
  const policy = { on: false, calls: 0 };
  let h: WorkflowHarness;
  beforeAll(async () => {
    // The runtime is per process and installs once: this is the worker's (the harness's own install does nothing).
    const logger = createLogger({ level: 'debug', format: 'json', name: 'worker', destination: log.stream });
    installTemporalRuntime({ logger, withoutFailureText: true });
    h = await WorkflowHarness.start({
      activities: failingForGood('PolicyEnforcement', policy, 0),
      observe: { metrics: createWorkerMetrics(), logger: silentLogger() },
    });
    await h.mcp.configure(orderConfig());
  });
  afterAll(async () => h?.stop());

  it('carry the failure types and where it happened, never its message or stack', async () => {
    policy.on = true;
    const reply = await h.send({ message: 'Check order ORD-7017 status.' });
    expect(reply).toMatchObject({ kind: 'FAILED', failureType: 'STEP_REFUSED' });
    const failed = await sdkFailureLines(reply.ref.workflowId, log);
    expect(failed.map((l) => l['msg'])).toEqual(expect.arrayContaining(['Workflow failed', 'Activity failed']));
    for (const line of failed) expect(JSON.stringify(line)).not.toContain(FAILURE_TEXT);
    // The workflow's failure reaches the log through the SDK's sink, a copy that keeps only the error's class.
    expect(failed.find((l) => l['msg'] === 'Workflow failed')).toMatchObject({
      level: 'warn',
      workflowType: expect.any(String),
      err: { type: 'Error', cause: { type: 'Error' } },
    });
    expect(failed.find((l) => l['msg'] === 'Activity failed')).toMatchObject({
      activityType: 'LocalSteps',
      attempt: 1,
      err: { type: 'ApplicationFailure', failureType: 'STEP_REFUSED', nonRetryable: true },
    });
  });

  it("carry a failed workflow task's outline in core's own line, never the workflow error's message or stack", async () => {
    const connection = await NativeConnection.connect({ address: h.temporal.address });
    const taskQueue = `${h.taskQueue}-failing-task`;
    const worker = await Worker.create({
      connection,
      namespace: h.temporal.namespace,
      taskQueue,
      workflowsPath: require.resolve('../support/failing-task-workflow'),
    });
    try {
      const failing = await worker.runUntil(async () => {
        const handle = await h.client.workflow.start('failingTask', {
          taskQueue,
          workflowId: `failing-task-${taskQueue}`,
        });
        const runId = handle.firstExecutionRunId;
        const taskFailed = (l: Record<string, unknown>) => l['msg'] === 'Failing workflow task' && l['runId'] === runId;
        const lines = await linesOnce(log, taskFailed, (found) => found.length > 0);
        await handle.terminate('test done');
        return lines;
      });
      expect(failing).toHaveLength(1);
      expect(JSON.stringify(failing)).not.toContain(TASK_FAILURE_TEXT);
      expect(failing[0]).toMatchObject({
        level: 'warn',
        sdkComponent: 'core',
        failure: expect.stringMatching(/message: "\[withheld\]", source: "TypeScriptSDK", stack_trace: "\[withheld\]"/),
      });
    } finally {
      await connection.close();
    }
  });
});
