import { noEvidence, violations, type FaultEvidence } from './invariants';
import type { ReliabilityStack } from './stack';
import type { ConversationRecord } from './traffic';

/** Every invariant of a scenario, with what the histories show the faults did. */
export async function checkStack(
  stack: ReliabilityStack,
  records: readonly ConversationRecord[]
): Promise<{ violations: string[]; evidence: FaultEvidence }> {
  const evidence = noEvidence();
  const found = await violations({ client: stack.client, db: stack.tdb.db, tools: stack.tools }, records, evidence);
  return { violations: found, evidence };
}

function retriedTypes(evidence: FaultEvidence): string {
  const types = Object.entries(evidence.retriedByType).map(([type, n]) => `${type}×${n}`);
  return types.length > 0 ? ` (${types.join(' ')})` : '';
}

/** One line per scenario run: the counts the issue asks for, greppable as `[reliability]`. */
export function report(
  scenario: string,
  records: readonly ConversationRecord[],
  facts: Record<string, number | string>,
  evidence: FaultEvidence,
  startedAt: number
): void {
  const turns = records.flatMap((r) => r.turns);
  const parts = [
    `${turns.length} turns`,
    ...Object.entries(facts).map(([k, v]) => `${k}=${v}`),
    `turns re-run via retryTurn=${turns.filter((t) => t.failedRuns.length > 0).length}`,
    `client resends=${turns.reduce((n, t) => n + t.clientErrors.length, 0)}`,
    `activities retried=${evidence.retriedActivities}${retriedTypes(evidence)}`,
    `workflow-task timeouts=${evidence.workflowTaskTimeouts}`,
    `${((Date.now() - startedAt) / 1000).toFixed(1)} s`,
  ];
  const failures = turns.flatMap((t) => t.failures.map((f) => `  ${t.workflowId} failed once: ${f}`));
  console.log([`[reliability] ${scenario}: ${parts.join(', ')}`, ...failures].join('\n'));
}
