import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TurnReply } from '../../api/ports';
import { temporalHeldTools } from '../../api/turns/held-tools';
import type { McpToolRow } from '../../core/config/tool-rows';
import { exportHistory } from '../../cli/history/json';
import { PARKED_MEMO_KEY, type HeldToolDecisionInput, type ParkedCall } from '../../workflows/messages';
import { extracted, loanConfig, plan } from '../support/loan-config';
import { answer } from '../support/order-config';
import { WorkflowHarness } from '../support/workflow-harness';
import { writeFixtureManifest, type FixtureEntry } from './fixture-manifest';

/**
 * `npx tsx test/replay/export-parked-histories.ts [set]`: the seed conversations never park a turn on a
 * person, so a change to what a turn does once an approval (D16) or a held tool call (#22) is decided
 * would replay them all and still break the turns parked when it ships. This records turns that park
 * and are decided each way, into histories/<set>/ (default v3-parked), replayed like the seed fixtures.
 * `… export-parked-histories.ts v3-parked-expired` records turns whose approval expired or whose hold timed out
 * instead: no one decided, so what follows the timer (APPROVAL_EXPIRED, HOLD_TIMEOUT) must replay as well (any set
 * named `…-expired`: v3-parked-memo-expired is recorded so).
 */
export const PARKED_SET = 'v3-parked';
const SET = process.argv[2] ?? PARKED_SET;
const OUT = join(__dirname, 'histories', SET);
/** Long enough for the turn to park and be seen parked, short enough to record. */
const EXPIRES_MS = 1_500;
const MESSAGE = 'Apply loan for customer CUST-1001, amount 350000 for 36 months.';
const SUBMIT = '/loan/applications';
const HOLD: Partial<McpToolRow> = { onRetriesExhausted: 'HOLD', maxAttempts: 2, initialIntervalMs: 100 };
const TOOL_REQUEST = { tool_request: { tool_code: 'loan.application.submit', args: { customerId: 'CUST-1001' } } };

export interface Parked {
  name: string;
  workflowId: string;
  turn: number;
}

const PLANNED = [extracted('CUST-1001'), plan('loan.credit.rating.check', 'CUST-1001')];

/** An approval decided each way, or (`expired`) left until its timer fires. */
async function approval(h: WorkflowHarness, decision: 'approve' | 'reject' | 'expired'): Promise<Parked> {
  const approvalTimeoutMs = decision === 'expired' ? EXPIRES_MS : undefined;
  await h.mcp.configure(loanConfig({ submitNeedsApproval: true, approvalTimeoutMs }));
  h.mcp.llm.setScript([...PLANNED, plan('loan.application.submit', 'CUST-1001'), answer('Done.')]);
  const parked = await h.send({ message: MESSAGE });
  if (parked.kind !== 'AWAITING_APPROVAL') throw new Error(`expected a parked turn, got ${parked.kind}`);
  const { conversationId, turnNumber, workflowId } = parked.ref;
  if (decision === 'expired') {
    await h.client.workflow.getHandle(workflowId).result();
  } else {
    const done = await h.gateway().decideApproval(conversationId, turnNumber, { decision, decidedBy: 'fixture' });
    if (done.kind !== 'COMPLETED') throw new Error(`${decision}: the turn did not complete (${done.kind})`);
  }
  return { name: `approval-${decision}`, workflowId, turn: turnNumber };
}

/**
 * A submit out of retries, held, then decided; `direct`: the request's own tool call (D21). No decisions: the hold
 * times out (HOLD_TIMEOUT) with the upstream still down.
 */
export async function hold(h: WorkflowHarness, decisions: HeldToolDecisionInput[], direct: boolean): Promise<Parked> {
  const held = decisions.length === 0 ? { ...HOLD, holdTimeoutMs: EXPIRES_MS } : HOLD;
  await h.mcp.configure(loanConfig({ submit: direct ? { ...held, allowDirectRequest: true } : held }));
  const planned = direct ? [extracted('CUST-1001')] : [...PLANNED, plan('loan.application.submit', 'CUST-1001')];
  h.mcp.llm.setScript([...planned, answer('Done.')]);
  h.mcp.toolServer.faults.set(SUBMIT, { failTimes: 1_000, status: 503 });
  const reply: TurnReply = await h.send({ message: MESSAGE, inputParams: direct ? TOOL_REQUEST : {} });
  if (reply.kind !== 'HELD') throw new Error(`expected a held turn, got ${reply.kind}`);
  const handle = h.client.workflow.getHandle(reply.ref.workflowId);
  for (const [i, decision] of decisions.entries()) {
    // The upstream stays down until the last decision, so a retry before it holds again.
    if (i > 0) await heldAgain(h, reply.ref.workflowId);
    if (i === decisions.length - 1) h.mcp.toolServer.faults.clear(SUBMIT);
    await temporalHeldTools(h.client, { taskQueue: h.taskQueue }).resolve(reply.ref.workflowId, {
      ...decision,
      decidedBy: 'fixture',
    });
  }
  await handle.result().catch(() => undefined);
  h.mcp.toolServer.faults.clear(SUBMIT);
  const name = `${direct ? 'direct' : 'planner'}-hold-${decisions.map((d) => d.action).join('-') || 'timeout'}`;
  return { name, workflowId: reply.ref.workflowId, turn: reply.ref.turnNumber };
}

/** Waits for the turn's memo to name its held call: no query, which could split the task it rides on. */
async function heldAgain(h: WorkflowHarness, workflowId: string): Promise<void> {
  const handle = h.client.workflow.getHandle(workflowId);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const held = async () => ((await handle.describe()).memo?.[PARKED_MEMO_KEY] as ParkedCall | undefined)?.held;
  while (!(await held())) await new Promise((resolve) => setTimeout(resolve, 100));
}

/** Every kind of parked turn, decided; the names are the fixtures' file names. */
export async function recordParkedTurns(h: WorkflowHarness): Promise<Parked[]> {
  const markDone: HeldToolDecisionInput = { action: 'markDone', result: { applicationId: 'LA-1' } };
  return [
    await approval(h, 'approve'),
    await approval(h, 'reject'),
    await hold(h, [{ action: 'retry' }, { action: 'retry' }], false),
    await hold(h, [markDone], false),
    await hold(h, [{ action: 'skip' }], false),
    await hold(h, [{ action: 'retry' }, markDone], true),
    await hold(h, [{ action: 'skip' }], true),
  ];
}

/** Parked turns no one decided: the approval expires, the hold times out. */
export async function recordExpiredTurns(h: WorkflowHarness): Promise<Parked[]> {
  return [await approval(h, 'expired'), await hold(h, [], false)];
}

async function main(): Promise<void> {
  const h = await WorkflowHarness.start();
  try {
    const parked = await (SET.endsWith('-expired') ? recordExpiredTurns(h) : recordParkedTurns(h));
    mkdirSync(OUT, { recursive: true });
    for (const file of readdirSync(OUT)) if (file.endsWith('.json')) rmSync(join(OUT, file));
    const manifest: FixtureEntry[] = [];
    for (const p of parked) {
      const file = `${p.name}.json`;
      writeFileSync(join(OUT, file), exportHistory({ events: await h.history(p.workflowId) }));
      manifest.push({ file, workflowId: p.workflowId, conversation: p.name, turn: p.turn });
    }
    writeFixtureManifest(OUT, 'export-parked-histories.ts', manifest);
  } finally {
    await h.stop();
  }
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    }
  );
}
