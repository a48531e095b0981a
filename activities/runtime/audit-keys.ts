import type { AuditInsert } from '../../db/repositories/audit';

/**
 * The first segment of a row's key: the turn, qualified by the Temporal run writing it (`<turn id>@<run id>`),
 * so that each run of a turn (an operator's retry, a new message taking a failed turn's id, a workflow reset)
 * appends rows of its own and never rewrites or deletes another run's: the audit stream has already sent
 * those ids, and they are the failed run's trail. In process there is no run: the turn id alone.
 */
export function auditKeyRoot(turnId: string, runId: string | null): string {
  return runId === null ? turnId : `${turnId}@${runId}`;
}

/** The key segment of the row the workflow ends a run with when no step wrote it (TURN_CANCELLED, TurnFailure). */
export const RUN_END_SEGMENT = 'turn-failure';

/**
 * The keys whose row, once it exists, ends the runs these rows belong to: each run's RUN_END_SEGMENT row (TurnFailure
 * writes it as its only row, index 0). A batch that carries that row itself is not fenced by it.
 */
export function runEndKeys(rows: readonly AuditInsert[]): string[] {
  const carried = new Set(rows.map((row) => row.idempotencyKey));
  const keys = new Set<string>();
  for (const { workflowId, runId } of rows) {
    if (workflowId !== null && runId !== null) keys.add(`${auditKeyRoot(workflowId, runId)}/${RUN_END_SEGMENT}/0`);
  }
  return [...keys].filter((key) => !carried.has(key));
}
