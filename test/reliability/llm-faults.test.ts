import { and, eq } from 'drizzle-orm';
import { Fallback } from '../../core/mcp/constants';
import { ceLlmCallLog } from '../../db/schema';
import type { LlmFaultRule } from '../../scripted-llm';
import { replyMismatches } from './support/invariants';
import { checkStack, report } from './support/report';
import { ReliabilityStack } from './support/stack';
import { demoTraffic, runTraffic, turnCount, type ConversationRecord } from './support/traffic';

/**
 * Scenario 4: the scripted LLM answers 529, 429, too late (beyond the worker's LLM_TIMEOUT_MS) and
 * with prose instead of JSON, on a fixed schedule per call kind. Single faults are absorbed by the
 * SDK's own retries; bursts longer than those fail the activity attempt and Temporal retries it.
 * Errors and timeouts must not change any answer. Prose where JSON is expected is not an error the
 * engine retries: the dialogue-act step falls back to its regex guard (same answer), and the
 * planner answers with its documented plan-error fallback — a clear, completed outcome.
 */
const TRAFFIC = demoTraffic({ 'loan-confirmation': 5, 'move-connections': 5 });
const LLM_TIMEOUT_MS = 1_500;
const LATE_MS = 3_000;
const PROSE = 'Sure! Let me look into that for you.';
const MOVE_PLANNER = 'You answer questions about moving connections.';
/** The DA prompt of a conversation's first message ("User message:", no history yet). */
const FIRST_MESSAGES = /(?:^|\n)User message:\n(?:I need a loan for my customer|What is the status of my move)/;

const FAULTS: LlmFaultRule[] = [
  { kind: 'PLAN', every: 4, fault: { status: 529 }, label: 'PLAN 529' },
  // Three in a row: more than the SDK's two retries, so the McpPlan activity attempt fails.
  { kind: 'PLAN', every: 13, burst: 3, fault: { status: 529 }, label: 'PLAN 529 ×3 (activity retry)' },
  { kind: 'RESP_TEXT', every: 3, fault: { status: 429 }, label: 'RESP_TEXT 429' },
  { kind: 'DA', every: 5, fault: { delayMs: LATE_MS }, label: 'DA timeout' },
  { kind: 'SCHEMA', every: 4, burst: 3, fault: { delayMs: LATE_MS }, label: 'SCHEMA timeout ×3 (activity retry)' },
  // Only on first messages: later in the loan flow an unreadable dialogue act sends the engine to
  // LLM intent resolution, a path the demo recordings have no answers for.
  { kind: 'DA', match: FIRST_MESSAGES, every: 3, fault: { text: PROSE }, label: 'DA non-JSON' },
  { kind: 'PLAN', match: MOVE_PLANNER, every: 5, limit: 2, fault: { text: PROSE }, label: 'PLAN non-JSON (move)' },
];

/** Turns whose planner call got prose, from ce_llm_call_log (every call of a turn is logged there). */
async function turnsWithProsePlans(stack: ReliabilityStack): Promise<Set<string>> {
  const rows = await stack.tdb.db
    .select({ conversationId: ceLlmCallLog.conversationId, turnNumber: ceLlmCallLog.turnNumber })
    .from(ceLlmCallLog)
    .where(and(eq(ceLlmCallLog.callKind, 'PLAN'), eq(ceLlmCallLog.responseText, PROSE)));
  return new Set(rows.map((r) => `turn-${r.conversationId}-${r.turnNumber}`));
}

/** Mismatching turns that are not explained by prose from the planner (those must show the fallback). */
function unexplained(records: ConversationRecord[], prose: Set<string>): string[] {
  const fallbackTurns = records.flatMap((c) => c.turns).filter((t) => prose.has(t.workflowId));
  const wrongFallback = fallbackTurns
    .filter((t) => t.result.payload.value !== Fallback.planError || t.result.outcome === 'FAILED')
    .map((t) => `${t.workflowId}: got ${JSON.stringify(t.result.payload.value)} after a prose plan`);
  return [
    ...replyMismatches(records).filter((m) => ![...prose].some((id) => m.startsWith(`${id}:`))),
    ...wrongFallback,
  ];
}

describe('reliability: LLM 529 / 429 / timeouts / invalid JSON on a schedule (issue #8, scenario 4)', () => {
  let stack: ReliabilityStack;

  beforeAll(async () => {
    stack = await ReliabilityStack.start({
      temporal: 'embedded',
      workers: 2,
      workerEnv: { LLM_TIMEOUT_MS: String(LLM_TIMEOUT_MS) },
    });
    stack.llm.setFaults(FAULTS);
  }, 180_000);
  afterAll(async () => stack?.stop(), 60_000);

  it('completes every turn exactly once with the recorded answers, or the planner fallback where JSON was prose', async () => {
    const started = Date.now();
    const records = await runTraffic(stack.gateway(), TRAFFIC, {
      concurrency: 5,
      turnDeadlineMs: 150_000,
      diagnose: (id) => stack.diagnose(id),
    });
    const injected = stack.llm.injectedFaults();
    const { violations, evidence } = await checkStack(stack, records);
    const prose = await turnsWithProsePlans(stack);
    const facts = { ...injected, 'turns answered by the plan-error fallback': prose.size };
    report('llm-faults', records, facts, evidence, started);

    expect(records.flatMap((r) => r.turns)).toHaveLength(turnCount(TRAFFIC));
    expect(FAULTS.map((r) => r.label ?? '').filter((label) => !injected[label])).toEqual([]);
    expect(evidence.retriedActivities).toBeGreaterThan(0);
    expect(unexplained(records, prose)).toEqual([]);
    expect(violations).toEqual([]);
    // Every loan got through (prose is only injected into the move planner): one write each.
    expect(stack.tools.counters.totalWriteEffects()).toBe(5);
  }, 300_000);

  it('fails a turn clearly when the LLM is down beyond the retry budget, and retryTurn completes it once it is back', async () => {
    const started = Date.now();
    // An outage of the response model: every RESP_TEXT call answers 529, through all 3 SDK tries of
    // each of the activity's 6 attempts (~31 s of backoff), so the turn ends FAILED (retryable).
    stack.llm.setFaults([{ kind: 'RESP_TEXT', every: 1, fault: { status: 529 }, label: 'RESP_TEXT outage' }]);
    let outage = 0;
    const records = await runTraffic(stack.gateway(), demoTraffic({ 'loan-confirmation': 1 }), {
      concurrency: 1,
      turnDeadlineMs: 120_000,
      diagnose: (id) => stack.diagnose(id),
      // The operator retries once the provider is back.
      beforeRetry: async () => {
        outage = stack.llm.injectedFaults()['RESP_TEXT outage'] ?? 0;
        stack.llm.setFaults([]);
      },
    });
    const { violations, evidence } = await checkStack(stack, records);
    report('llm-outage', records, { 'RESP_TEXT 529 during the outage': outage }, evidence, started);

    const first = records[0]?.turns[0];
    expect(first?.failedRuns).toHaveLength(1);
    expect(first?.failures[0]).toMatch(/^LLM_CALL_FAILED: /);
    // 6 activity attempts (workflows/activity-options.ts) × 3 tries of the SDK client each.
    expect(outage).toBe(18);
    expect(replyMismatches(records)).toEqual([]);
    expect(violations).toEqual([]);
  }, 240_000);
});
