import { runDemoConversations } from '../../demo/conversations';
import type { DemoTurnRecord } from '../../demo/demo-runner';
import { inProcessDemoSend } from '../../demo/in-process-send';
import { runTurnInProcess } from '../../activities/runner/in-process';
import { demoLlmScript } from '../../demo/recorded-llm';
import type { Json } from '../../core/json';
import { listAudits, type StoredAudit } from '../../db/repositories/audit';
import { seedPacks } from '../../db/seed';
import { response, rule } from '../../db/seed/builders';
import { insertConfigRows } from '../support/config-db';
import { runSeedConversations } from '../support/seed-turns';
import { WorkflowHarness } from '../support/workflow-harness';

// With the follow-ups after a finished answer (seed "stale move ID bug"): each turn answered from its own work.
const SEEDS = [
  'loan-confirmation',
  'move-connections',
  'faq',
  'move-connections-follow-up',
  'zapper-follow-up',
  'loan-after-submit',
];

/** Values that differ between any two runs (ids, clocks), not between the runners. */
const VOLATILE = new Set([
  '_meta',
  'durationMs',
  'totalMs',
  'steps',
  'latencyMs',
  'turnId',
  'conversationId',
  // The length of the planner's observation text, which holds tool latencies.
  'mcp_observations_raw_chars',
]);

function stable(value: Json): Json {
  if (Array.isArray(value)) return value.map(stable);
  // Tool latencies also appear inside serialised tool results and prompts.
  if (typeof value === 'string') return value.replace(/(\\?"latencyMs\\?":)\d+/g, '$1#');
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => !VOLATILE.has(k))
      .map(([k, v]) => [k, stable(v)])
  );
}

/** A row as the runner wrote it: its key within the turn (and run, under Temporal), stage and payload. */
function comparable(row: StoredAudit): [string, string, Json] {
  return [row.idempotencyKey.replace(/^turn-[0-9a-f-]+-\d+(@[^/]+)?\//, ''), row.stage, stable(row.payload)];
}

async function auditsOf(h: WorkflowHarness, records: DemoTurnRecord[]) {
  const out: Record<string, [string, string, Json][]> = {};
  for (const r of records) {
    const rows = await listAudits(h.mcp.deps.db, r.conversationId as string);
    out[`${r.conversation}#${r.turn}`] = rows.filter((row) => row.turnNumber === r.turn).map(comparable);
  }
  return out;
}

/** Per turn, the distinct run ids of its audit rows and LLM calls: `run` for any one id. */
async function runsOf(h: WorkflowHarness, records: DemoTurnRecord[]): Promise<(string | null)[][]> {
  const out: (string | null)[][] = [];
  for (const r of records) {
    const audits = (await listAudits(h.mcp.deps.db, r.conversationId as string)).filter((a) => a.turnNumber === r.turn);
    const { rows } = await h.mcp.deps.db.$client.query<{ run_id: string | null }>(
      'SELECT run_id FROM ce_llm_call_log WHERE conversation_id = $1 AND turn_number = $2',
      [r.conversationId, r.turn]
    );
    const ids = new Set([...audits.map((a) => a.runId), ...rows.map((row) => row.run_id)]);
    out.push([...ids].map((id) => (id === null ? null : 'run')));
  }
  return out;
}

const outcomes = (records: DemoTurnRecord[]) =>
  records
    .map((r) => [r.conversation, r.turn, r.ok, r.intent, r.state, r.outcome, r.reply])
    .sort((a, b) => String(a[0]).localeCompare(String(b[0])) || Number(a[1]) - Number(b[1]));

describe('runner parity: in-process runner and conversationTurnV3 (issue #13 item 8)', () => {
  let h: WorkflowHarness;
  beforeAll(async () => {
    h = await WorkflowHarness.start();
  });
  afterAll(async () => h?.stop());

  it('give the same outcomes and the same audit rows for the seed conversations', async () => {
    const durable = await runSeedConversations(h, SEEDS);
    h.mcp.llm.setScript(demoLlmScript());
    const local = await runDemoConversations(inProcessDemoSend(h.mcp.deps), { only: SEEDS });
    expect(outcomes(local)).toEqual(outcomes(durable));
    expect(durable.every((r) => r.ok)).toBe(true);
    expect(await auditsOf(h, local)).toEqual(await auditsOf(h, durable));
    // Each durable row names the one run that wrote it (the what-if recording of a retried turn reads it).
    expect(await runsOf(h, durable)).toEqual(durable.map(() => ['run']));
    expect(await runsOf(h, local)).toEqual(local.map(() => [null]));
  });

  it('write the same rows when rules cycle until the pass limit ends them (RULE_PASS_LIMIT_REACHED)', async () => {
    await seedPacks(h.mcp.deps.db, ['all']);
    h.mcp.llm.setScript(demoLlmScript());
    const loop = (ruleId: number, from: string, to: string) =>
      rule({
        ruleId,
        intentCode: 'GREETING',
        stateCode: from,
        ruleType: 'REGEX',
        matchPattern: '.*',
        action: 'SET_STATE',
        actionValue: to,
      });
    await insertConfigRows(h.mcp.deps.db, {
      rules: [loop(9001, 'IDLE', 'LOOP_A'), loop(9002, 'LOOP_A', 'IDLE')],
      responses: [
        response({
          responseId: 9001,
          intentCode: 'GREETING',
          stateCode: 'LOOP_A',
          responseType: 'EXACT',
          exactText: 'Still looping.',
        }),
      ],
    });
    await h.mcp.base.store.refresh();
    const durable = await h.send({ message: 'hi' });
    if (durable.kind !== 'COMPLETED') throw new Error(JSON.stringify(durable));
    const local = await runTurnInProcess(h.mcp.deps, { message: 'hi' });
    expect([durable.result.state, durable.result.payload.value]).toEqual(['LOOP_A', 'Still looping.']);
    expect([local.state, local.payload.value]).toEqual(['LOOP_A', 'Still looping.']);
    const rows = async (conversationId: string) => (await listAudits(h.mcp.deps.db, conversationId)).map(comparable);
    const written = await rows(durable.ref.conversationId);
    expect(written.map(([, stage]) => stage)).toContain('RULE_PASS_LIMIT_REACHED (RulesStep)');
    expect(await rows(local.conversationId)).toEqual(written);
  });
});
