import { writeViolations, conversationViolations, replyMismatches } from '../reliability/support/invariants';
import { ReliabilityStack } from '../reliability/support/stack';
import { demoTraffic, runTraffic } from '../reliability/support/traffic';
import type { ConvengineProcess } from '../support/child-processes';
import { activityEntries } from '../support/history';

/**
 * Issue #6 item 7: a worker process SIGKILLed mid-turn, while it runs the turn's write tool, and a
 * second worker process takes over and completes the turn — once, with the write applied once.
 *
 * Why takeover takes seconds here: Temporal learns that an activity's worker is gone when its
 * heartbeats stop (10 s heartbeat timeout, workflows/activity-options.ts) or its start-to-close
 * timeout passes, whichever is first. This test's config also sets start_to_close_timeout_ms = 3000
 * on the submit tool row — the knob an operator has for a single HTTP write — so the attempt on the
 * dead worker times out after 3 s and attempt 2 runs on the survivor. The workflow task that
 * follows goes to the dead worker's sticky queue first and falls back to the normal queue after the
 * sticky schedule-to-start timeout (10 s, the SDK default); the survivor replays the history there.
 */
const SUBMIT_ROUTE = '/loan/applications';
const SUBMIT_TOOL = 'loan.application.submit';

async function eventually<T>(probe: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('worker process crash mid-turn (issue #6 item 7)', () => {
  let stack: ReliabilityStack;
  beforeAll(async () => {
    stack = await ReliabilityStack.start({
      temporal: 'embedded',
      workers: 2,
      toolProxyPerWorker: true,
      configSql: [`UPDATE ce_mcp_tool SET start_to_close_timeout_ms = 3000 WHERE tool_code = '${SUBMIT_TOOL}'`],
    });
  }, 120_000);
  afterAll(async () => stack?.stop(), 60_000);

  it('completes the turn once on the second worker after the worker running its write tool is SIGKILLed', async () => {
    const [a, b] = stack.workers;
    // Turns 1–2 run normally; then the submit is applied and its answer held, so the tool call is
    // still in flight on whichever worker sent it when that worker is killed.
    const killed = eventually(() => stack.workersThatCalled(SUBMIT_ROUTE)[0], 90_000).then(async (holder) => {
      await stack.killWorker(holder);
      return holder;
    });
    const [records, victim] = await Promise.all([
      runTraffic(stack.gateway(), demoTraffic({ 'loan-confirmation': 1 }), {
        concurrency: 1,
        turnDeadlineMs: 90_000,
        diagnose: (id) => stack.diagnose(id),
        onTurn: (turn) => {
          if (turn.turnNumber === 2)
            stack.tools.faults.set(SUBMIT_ROUTE, { applyThenTimeout: { times: 1, delayMs: 8_000 } });
        },
      }),
      killed,
    ]);
    const survivor = [a, b].find((w) => w !== victim) as ConvengineProcess;
    const record = records[0];
    const turn3 = record?.turns[2];
    if (!record || !turn3) throw new Error('the conversation did not run three turns');

    expect(replyMismatches(records)).toEqual([]);
    expect(turn3.failedRuns).toEqual([]);
    expect(
      await conversationViolations({ client: stack.client, db: stack.tdb.db, tools: stack.tools }, record)
    ).toEqual([]);
    // Sent twice (once per attempt, under one Idempotency-Key), applied once.
    expect(stack.tools.counters.requests(SUBMIT_ROUTE)).toBe(2);
    expect(writeViolations(stack.tools)).toEqual([]);
    expect(stack.tools.counters.totalWriteEffects()).toBe(1);
    // History: the submit's final attempt is the 2nd, and the survivor ran it.
    const events = (await stack.client.workflow.getHandle(turn3.workflowId).fetchHistory()).events ?? [];
    const submit = activityEntries(events).find((e) => e.summary?.includes(SUBMIT_TOOL));
    expect(submit).toMatchObject({ outcome: 'COMPLETED', attempt: 2 });
    const started = events.find(
      (e) => Number(e.activityTaskStartedEventAttributes?.scheduledEventId) === submit?.scheduledEventId
    );
    expect(started?.activityTaskStartedEventAttributes?.identity).toMatch(new RegExp(`^${survivor.pid}@`));
    expect(victim.running).toBe(false);
  }, 180_000);
});
