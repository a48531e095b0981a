import type { TurnReply } from '../../api/ports';
import { sreCommand } from '../../cli/commands/sre';
import { DEMO_CONVERSATIONS } from '../../demo/conversations';
import { turnProgressQuery } from '../../workflows/messages';
import { ReliabilityStack } from './support/stack';
import { loadEnv } from '../../config/env';

/**
 * Issue #22 on worker processes: a loan submission (seed: on_retries_exhausted=HOLD) whose
 * upstream is down is held, and nothing about it is lost when the worker dies and the Temporal
 * server restarts while it waits; a NON_IDEMPOTENT_WRITE in flight when its worker is SIGKILLed is
 * held as "outcome unknown", and mark-done completes it without a second write.
 */
const SUBMIT = '/loan/applications';
const LOAN = DEMO_CONVERSATIONS.find((c) => c.name === 'loan-confirmation');
const SUBMIT_ROW = "tool_id = (SELECT tool_id FROM ce_mcp_tool WHERE tool_code = 'loan.application.submit')";

async function sre(stack: ReliabilityStack, args: string[]): Promise<number> {
  const io = { out: () => undefined, err: (l: string) => console.error(l), stdin: process.stdin };
  return sreCommand.run([...args, '--address', stack.address, '--task-queue', stack.taskQueue], io, loadEnv());
}

/** Runs the loan conversation up to its submit turn; returns that turn's reply. */
async function untilSubmit(stack: ReliabilityStack): Promise<TurnReply> {
  if (!LOAN) throw new Error('no loan-confirmation demo conversation');
  const conversationId = crypto.randomUUID();
  for (const turn of LOAN.turns) {
    const reply = await stack.gateway().sendMessage({
      conversationId,
      message: turn.message,
      inputParams: {},
      reset: false,
      idempotencyKey: null,
      requestContext: {},
    });
    if (reply.kind !== 'COMPLETED') return reply;
  }
  throw new Error('the loan conversation completed without holding its submit');
}

function finalReply(): string {
  return String(LOAN?.turns.at(-1)?.expect.reply);
}

describe('reliability: a held turn survives its worker and the server (issue #22)', () => {
  let stack: ReliabilityStack;

  beforeAll(async () => {
    stack = await ReliabilityStack.start({
      temporal: 'process',
      workers: 1,
      toolProxyPerWorker: true,
      configSql: [
        `UPDATE ce_mcp_tool SET max_attempts = 2, initial_interval_ms = 100 WHERE ${SUBMIT_ROW}`,
        `UPDATE ce_mcp_http_tool SET max_attempts = 1, circuit_enabled = false, read_timeout_ms = 60000 WHERE ${SUBMIT_ROW}`,
      ],
    });
  }, 180_000);
  afterAll(async () => stack?.stop(), 60_000);

  it('held → worker SIGKILLed → server restarted → new worker → sre retry → the recorded answer, one write', async () => {
    stack.tools.faults.set(SUBMIT, { failTimes: 1_000, status: 503 });
    const held = await untilSubmit(stack);
    expect(held.kind).toBe('HELD');
    const id = held.ref.workflowId;
    await stack.killWorker(stack.workers[0] as (typeof stack.workers)[number]);
    await stack.restartDevServer(500);
    await stack.startWorker();
    const progress = await stack.client.workflow.getHandle(id).query(turnProgressQuery);
    expect(progress).toMatchObject({ status: 'HELD', held: { toolCode: 'loan.application.submit', attempts: 2 } });
    stack.tools.faults.clear(SUBMIT);

    expect(await sre(stack, ['retry', '--workflow-id', id, '--by', 'reliability'])).toBe(0);
    const result = (await stack.client.workflow.getHandle(id).result()) as { payload: { value: string } };
    expect(result.payload.value).toBe(finalReply());
    expect(stack.tools.counters.totalWriteEffects()).toBe(1);
  }, 180_000);

  it('a NON_IDEMPOTENT_WRITE whose worker dies in flight is held as unknown; mark-done writes nothing again', async () => {
    await stack.tdb.pool.query(`UPDATE ce_mcp_tool SET side_effect = 'NON_IDEMPOTENT_WRITE' WHERE ${SUBMIT_ROW}`);
    const before = stack.tools.counters.totalWriteEffects();
    // The write is applied at once; its answer comes after a minute, so the worker is still waiting when killed.
    stack.tools.faults.set(SUBMIT, { applyThenTimeout: { times: 1, delayMs: 60_000 } });
    const pending = untilSubmit(stack);
    const deadline = Date.now() + 60_000;
    while (stack.workersThatCalled(SUBMIT).length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const victim = stack.workersThatCalled(SUBMIT)[0];
    if (!victim) throw new Error('no worker called the submit route');
    await stack.killWorker(victim);
    await stack.startWorker();
    const held = await pending;
    expect(held.kind).toBe('HELD');
    const id = held.ref.workflowId;
    const progress = await stack.client.workflow.getHandle(id).query(turnProgressQuery);
    expect(progress.held).toMatchObject({ outcomeUnknown: true, failureType: 'TimeoutFailure' });
    expect(stack.tools.counters.totalWriteEffects()).toBe(before + 1);
    const requests = stack.tools.counters.requests(SUBMIT);

    const verified = '{"applicationId":"LA-90311","status":"SUBMITTED"}';
    expect(await sre(stack, ['mark-done', '--workflow-id', id, '--result', verified])).toBe(0);
    const result = (await stack.client.workflow.getHandle(id).result()) as { payload: { value: string } };
    expect(result.payload.value).toBe(finalReply());
    expect(stack.tools.counters.requests(SUBMIT)).toBe(requests);
    expect(stack.tools.counters.totalWriteEffects()).toBe(before + 1);
  }, 180_000);
});
