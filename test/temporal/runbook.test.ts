/**
 * docs/runbook.md, run as written: each `<!-- recipe: NAME -->` shell block is executed by bash with
 * the real `temporal` CLI against the real server of `npm run test:temporal`, on turns put in the
 * state the recipe is for (a failed turn, a tool activity waiting to retry, a parked approval).
 */
import { ApplicationFailure, type Payload } from '@temporalio/common';
import { isClaimReference } from '../../db/claims/codec';
import type { TurnResult } from '../../core/turn/contracts';
import { eventually } from '../devserver/harness';
import { extracted, loanConfig, plan } from '../support/loan-config';
import { answer, callTool, orderConfig, ORDER_STATUS, ORDER_TRACE } from '../support/order-config';
import { RECIPES, runRecipe } from '../support/runbook';
import { runConvengine } from '../support/run-cli';
import { closedRuns } from '../support/visibility';
import { WorkflowHarness } from '../support/workflow-harness';

const ORDER_MESSAGE = 'Check order ORD-7017 status and trace.';

let h: WorkflowHarness;
let responseStepBroken = false;

jest.setTimeout(180_000);

beforeAll(async () => {
  h = await WorkflowHarness.start({
    activities: (base) => ({
      ...base,
      ResponseResolution: async (input) => {
        if (responseStepBroken)
          throw ApplicationFailure.nonRetryable('response templates unavailable', 'RESPONSE_DOWN');
        return base.ResponseResolution(input);
      },
    }),
  });
});
afterAll(async () => h?.stop());

/** `convengine history <turn>` against the test's server: its stdout. */
async function convengineHistory(turn: string): Promise<string> {
  const run = await runConvengine(['history', turn], {
    TEMPORAL_ADDRESS: h.temporal.address,
    TEMPORAL_NAMESPACE: h.temporal.namespace,
    TEMPORAL_TASK_QUEUE: h.taskQueue,
  });
  expect(run).toMatchObject({ code: 0, stderr: '' });
  return run.stdout;
}

/** Runs one recipe of the runbook against the test's server. */
const recipe = (name: string, vars: Record<string, string>) => runRecipe(h.temporal, name, vars);

test('the runbook has the recipes this file and runbook-end-turns.test.ts run', () => {
  expect([...RECIPES.keys()]).toEqual([
    'find-failed',
    'read-history',
    'retry-tool',
    'reset-turn',
    'approve',
    'resolve-held',
    'end-turn',
    'end-turns-batch',
  ]);
});

/** Whether a history value holds a claim reference (db/claims/) anywhere: a payload that names no step. */
function holdsClaim(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || ArrayBuffer.isView(value)) return false;
  if ('metadata' in value && 'data' in value && isClaimReference(value as Payload)) return true;
  return Object.values(value).some(holdsClaim);
}

// A 15 000-byte note (under INPUT_PARAMS_MAX_BYTES) makes the session exceed the claim-check threshold: the
// step runs' inputs, results and failure details are claim references, and only their summaries name steps.
describe.each([
  ['a turn failed by a step', {}],
  ['a turn failed by a step, its step runs claim-checked', { note: 'x'.repeat(15_000) }],
])('%s', (_title, inputParams) => {
  const conversationId = crypto.randomUUID();
  const turn = `turn-${conversationId}-1`;

  beforeAll(async () => {
    await h.mcp.configure(orderConfig());
    h.mcp.setHandlers({});
    h.mcp.llm.setScript([
      callTool('mock.order.status', { orderId: 'ORD-7017' }),
      answer('Order ORD-7017 is SUBMITTED.'),
    ]);
    responseStepBroken = true;
    const reply = await h.send({ conversationId, message: ORDER_MESSAGE, inputParams });
    expect(reply).toMatchObject({ kind: 'FAILED', failureType: 'RESPONSE_DOWN', ref: { workflowId: turn } });
    expect(holdsClaim(await h.history(turn))).toBe(Object.keys(inputParams).length > 0);
  });

  test('find-failed lists it by outcome and by conversation', async () => {
    await eventually(async () => {
      const out = await recipe('find-failed', { CONVERSATION: conversationId });
      expect(out.split(turn).length - 1).toBe(3);
    }, 20_000);
  });

  test('read-history shows the failure and every step and tool call by its summary', async () => {
    const out = await recipe('read-history', { TURN: turn });
    // ResponseResolution is local-first and ran in a step run with McpFinalize, Rules and Memory: the run's marker
    // names its steps, the one that failed, and its failure.
    expect(out).toMatch(
      /LocalSteps: McpFinalize, Rules, ResponseResolution, Memory — failed at ResponseResolution {2}FAILED: .*response templates unavailable/
    );
    expect(out).toContain('McpToolCall: mock.order.status (call 1, READ_ONLY)');
    expect(out).toContain('McpPlan: planner iteration 2');
  });

  test('reset-turn re-runs the turn from the failed step once it is fixed, without calling the LLM again', async () => {
    responseStepBroken = false;
    await recipe('reset-turn', { TURN: turn });
    const result = (await h.client.workflow.getHandle(turn).result()) as TurnResult;
    expect(result.payload.value).toBe('Done: Order ORD-7017 is SUBMITTED.');
    expect(h.mcp.llm.unconsumed()).toEqual([]);
    const runs = await closedRuns(h.client, `WorkflowId = '${turn}'`);
    expect(runs.map((r) => r.status).sort()).toEqual(['COMPLETED', 'FAILED']);
    // The reset point is in the new run's history, as the Web UI shows it: its cause, its reason and the runs.
    const { runId } = await h.client.workflow.getHandle(turn).describe();
    const failed = runs.find((r) => r.status === 'FAILED')?.runId;
    const history = await convengineHistory(turn);
    expect(history).toMatch(
      new RegExp(
        `reset \\(RESET_WORKFLOW\\): .*re-run from ResponseResolution after the fix — from run ${failed}, new run ${runId}\n`
      )
    );
  });

  test('reset-turn finds a step that rode in a regular step run (PipelineEnd after PersistConversation)', async () => {
    await recipe('reset-turn', { TURN: turn, STEP: 'PipelineEnd' });
    const result = (await h.client.workflow.getHandle(turn).result()) as TurnResult;
    expect(result.payload.value).toBe('Done: Order ORD-7017 is SUBMITTED.');
    expect(h.mcp.llm.unconsumed()).toEqual([]);
    const runs = await closedRuns(h.client, `WorkflowId = '${turn}'`);
    expect(runs.map((r) => r.status).sort()).toEqual(['COMPLETED', 'COMPLETED', 'FAILED']);
  });
});

test('retry-tool runs a tool activity waiting out its backoff again at once, once the upstream is back', async () => {
  const slowRetries = { ...ORDER_STATUS, maxAttempts: 5, initialIntervalMs: 120_000 };
  responseStepBroken = false;
  await h.mcp.configure({ ...orderConfig(), mcpTools: [slowRetries, ORDER_TRACE] });
  let upstreamDown = true;
  let calls = 0;
  h.mcp.setHandlers({
    'mock.order.status': async () => {
      calls += 1;
      if (upstreamDown) throw new Error('order service unavailable');
      return { status: 'SUBMITTED', orderId: 'ORD-7017' };
    },
  });
  h.mcp.llm.setScript([callTool('mock.order.status', { orderId: 'ORD-7017' }), answer('Order ORD-7017 is SUBMITTED.')]);
  const conversationId = crypto.randomUUID();
  const turn = `turn-${conversationId}-1`;
  const sent = h.send({ conversationId, message: ORDER_MESSAGE });
  await eventually(async () => {
    const pending = (await h.client.workflow.getHandle(turn).describe()).raw.pendingActivities ?? [];
    expect(pending[0]).toMatchObject({ activityType: { name: 'McpToolCall' }, attempt: 2 });
  }, 30_000);
  // The Web UI's Pending Activities, in `convengine history`: the attempt of the maximum, the last failure.
  const history = await convengineHistory(turn);
  expect(history).toMatch(/McpToolCall — McpToolCall: mock\.order\.status .* → OPEN\n/);
  expect(history).toMatch(/pending McpToolCall — .*: SCHEDULED, attempt 2 of 5, next attempt at \S+Z\n/);
  expect(history).toMatch(/last failure \S+: order service unavailable\n/);
  upstreamDown = false;
  const out = await recipe('retry-tool', { TURN: turn });
  expect(out).toContain('order service unavailable');
  const result = (await h.client.workflow.getHandle(turn).result()) as TurnResult;
  expect(result.payload.value).toBe('Done: Order ORD-7017 is SUBMITTED.');
  expect(calls).toBe(2);
  await sent;
});

test('approve decides a parked approval with temporal workflow update execute; the write runs once', async () => {
  responseStepBroken = false;
  await h.mcp.configure(loanConfig({ submitNeedsApproval: true }));
  h.mcp.setHandlers({});
  h.mcp.toolServer.counters.reset();
  h.mcp.llm.setScript([
    extracted('CUST-1001'),
    plan('loan.credit.rating.check', 'CUST-1001'),
    plan('loan.application.submit', 'CUST-1001'),
    answer('Submitted LA-90311.'),
  ]);
  const parked = await h.send({ message: 'Apply loan for customer CUST-1001, amount 350000 for 36 months.' });
  if (parked.kind !== 'AWAITING_APPROVAL') throw new Error(`expected a parked turn, got ${parked.kind}`);
  expect(h.mcp.toolServer.counters.totalWriteEffects()).toBe(0);
  const out = await recipe('approve', { TURN: parked.ref.workflowId, CALL: String(parked.pending.callIndex) });
  expect(out).toContain(parked.ref.workflowId);
  const result = (await h.client.workflow.getHandle(parked.ref.workflowId).result()) as TurnResult;
  expect(result.payload.value).toBe('Submitted LA-90311.');
  expect(h.mcp.toolServer.counters.totalWriteEffects()).toBe(1);
});

test('resolve-held finds a held turn and retries its tool with temporal workflow update execute (#22)', async () => {
  responseStepBroken = false;
  await h.mcp.configure(loanConfig({ submit: { onRetriesExhausted: 'HOLD', maxAttempts: 2, initialIntervalMs: 100 } }));
  h.mcp.setHandlers({});
  h.mcp.toolServer.counters.reset();
  h.mcp.llm.setScript([
    extracted('CUST-1001'),
    plan('loan.credit.rating.check', 'CUST-1001'),
    plan('loan.application.submit', 'CUST-1001'),
    answer('Submitted LA-90311.'),
  ]);
  h.mcp.toolServer.faults.set('/loan/applications', { failTimes: 1_000, status: 503 });
  const held = await h.send({ message: 'Apply loan for customer CUST-1001, amount 350000 for 36 months.' });
  if (held.kind !== 'HELD') throw new Error(`expected a held turn, got ${held.kind}`);
  h.mcp.toolServer.faults.clear('/loan/applications');
  const turn = held.ref.workflowId;
  await eventually(async () => {
    const query = `TurnOutcome = 'HELD' AND WorkflowId = '${turn}'`;
    if ((await h.client.workflow.count(query)).count !== 1) throw new Error(`visibility does not list ${turn} yet`);
  });
  const out = await recipe('resolve-held', { TURN: turn });
  expect(out).toContain(turn);
  expect(out).toContain('loan.application.submit');
  const result = (await h.client.workflow.getHandle(turn).result()) as TurnResult;
  expect(result.payload.value).toBe('Submitted LA-90311.');
  expect(h.mcp.toolServer.counters.totalWriteEffects()).toBe(1);
});
