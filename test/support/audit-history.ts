import type { AuditRecord } from '../../core/audit';
import { AuditStage } from '../../core/audit/payloads';
import { parseAudit, unreadableAuditText } from '../../core/audit/read';
import type { JsonObject } from '../../core/json';
import type { RecordDecisionInput } from '../../core/turn/activities';
import type { StepInput, StepOutput } from '../../core/turn/contracts';
import type { StoredAudit } from '../../db/repositories/audit';
import type { ActivityEntry } from './history';

/**
 * ce_audit against event history (the idea of test/workflows/audit-history.test.ts, shared): the
 * audits a turn recorded in history are each completed activity's carried audits, then the ones it
 * returned; the table must hold exactly those, in order, plus the per-step frames.
 */
// The step wrapper writes these beside a step's own rows; a turn's failure row too, by the step whose last attempt failed.
export const FRAME_STAGES: ReadonlySet<string> = new Set([
  'STEP_ENTER',
  'STEP_EXIT',
  'STEP_ERROR',
  'TURN_DECISION',
  'ENGINE_KNOWN_FAILURE',
  'ENGINE_UNKNOWN_FAILURE',
]);

export interface ComparableAudit {
  stage: string;
  payload: JsonObject;
}

export function withoutMeta(payload: JsonObject): JsonObject {
  const { _meta: _ignored, ...rest } = payload;
  return rest;
}

export function auditsInHistory(entries: readonly ActivityEntry[]): ComparableAudit[] {
  return entries.flatMap((entry) => {
    if (entry.outcome !== 'COMPLETED') return [];
    const input = entry.input as Partial<StepInput & RecordDecisionInput>;
    const carried: AuditRecord[] =
      entry.type === 'RecordTurnDecision' ? (input.audits ?? []) : (input.carryAudits ?? []);
    const returned: AuditRecord[] = (entry.result as StepOutput | undefined)?.audits ?? [];
    return [...carried, ...returned].map((a) => ({ stage: a.stage, payload: withoutMeta(a.payload) }));
  });
}

/** The non-frame rows, comparable with auditsInHistory(). */
export function storedNonFrameAudits(rows: readonly StoredAudit[]): ComparableAudit[] {
  return rows
    .filter((r) => !FRAME_STAGES.has(r.stage))
    .map((r) => ({ stage: r.stage, payload: withoutMeta(r.payload) }));
}

/** One STEP_ENTER frame per step activity of history (RecordTurnDecision writes TURN_DECISION instead). */
export function stepFrames(rows: readonly StoredAudit[]): unknown[] {
  return rows.flatMap((r) => {
    const parsed = parseAudit(r);
    if (parsed.kind === 'unreadable') throw new Error(unreadableAuditText(parsed));
    return parsed.kind === 'read' && parsed.stage === AuditStage.StepEnter ? [parsed.payload.step] : [];
  });
}

export function stepsInHistory(entries: readonly ActivityEntry[]): string[] {
  return entries.filter((e) => e.type !== 'RecordTurnDecision').map((e) => e.type);
}
