import { audit, type AuditRecord } from '../core/audit';
import { AuditStage } from '../core/audit/payloads';
import type { TurnActivities } from '../core/turn/activities';
import type { TurnDecisionRecord } from '../core/turn/contracts';
import type { ActivityDeps } from './deps';
import { writeAudits } from './runtime/audit-writer';

/** A driver decision's TURN_DECISION row, as V1's RecordTurnDecision and V2's next step write it. */
export function decisionAudit(decision: TurnDecisionRecord): AuditRecord {
  return audit(AuditStage.TurnDecision, {
    kind: decision.kind,
    toolCode: decision.toolCode,
    reason: decision.reason,
    ...(decision.limit !== undefined ? { limit: decision.limit } : {}),
    ...(decision.iteration !== undefined ? { iteration: decision.iteration } : {}),
  });
}

/**
 * Persists a decision the driver made on its own (loop limit, guardrail block, duplicate call,
 * tool failure, approval outcome) as a TURN_DECISION audit row. In the workflow this activity is
 * also the decision's entry in event history, so ce_audit and history tell the same story.
 */
export function createRecordTurnDecision(deps: ActivityDeps): TurnActivities['RecordTurnDecision'] {
  return async (input) => {
    const record = decisionAudit(input.decision);
    // The pinned version is cached in the worker; unreadable, the row is kept (full policy).
    const snapshot = await deps.configStore.get(input.session.configVersion).catch(() => null);
    await writeAudits(deps, deps.audit.policy(snapshot), {
      turn: input.turn,
      session: input.session,
      keySegment: input.callKey,
      records: [...input.audits, record],
    });
  };
}
