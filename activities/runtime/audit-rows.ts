import type { AuditRecord } from '../../core/audit';
import { AuditStage, type StoredAuditMeta } from '../../core/audit/payloads';
import { admitsAudit, type AuditPolicy } from '../../core/audit/policy';
import type { JsonObject } from '../../core/json';
import { safeInputParams } from '../../core/params/safe';
import type { Session } from '../../core/session';
import type { TurnInput } from '../../core/turn/contracts';
import type { AuditGroup, AuditInsert, AuditMeta } from '../../db/repositories/audit';
import type { ActivityDeps } from '../deps';
import { currentRunId } from './activity-context';
import { auditCapped, payloadContextCapped } from './audit-context';
import { auditKeyRoot } from './audit-keys';

/*
 * What an audit write stores (audit-writer.ts stores it): the rows the policy admits, their keys, and the `_meta`
 * each row carries.
 */

/**
 * `_meta` added to every stored payload (§9.1) so a single row can be read on its own: where in
 * the turn it came from and what the session looked like. The part that is the same for every row
 * of a write (`shared`) is built once and sent once (writeAuditBatch).
 */
function metaOf(record: AuditRecord, session: Session, shared: JsonObject): AuditMeta {
  const own = {
    stage: record.stage,
    intent: record.meta?.intent ?? session.intent,
    state: record.meta?.state ?? session.state,
  } satisfies Pick<StoredAuditMeta, 'stage' | 'intent' | 'state'>;
  return { own, shared };
}

function sharedMeta(session: Session, turn: TurnInput, emittedAt: string): JsonObject {
  return {
    conversationId: turn.conversationId,
    turnNumber: turn.turnNumber,
    turnId: turn.turnId,
    emittedAt,
    inputParams: auditCapped('inputParams', safeInputParams(session.inputParams)),
    userInputParams: session.userInputParams,
    context: auditCapped('context', session.context),
  } satisfies Omit<StoredAuditMeta, 'stage' | 'intent' | 'state'>;
}

export interface AuditWrite {
  turn: TurnInput;
  /** Session the audits belong to (the step's final session); supplies `_meta`. */
  session: Session;
  /** Key segment after the turn id: a step's call key or a carry key. */
  keySegment: string;
  records: readonly AuditRecord[];
  /** Key suffix per record; defaults to the record's index. */
  suffix?: (index: number) => string;
  /**
   * The write that says the attempt failed when the batch carrying this one is refused (the refusal fails the
   * attempt): a step's STEP_ERROR and, when no retry follows, the turn's failure row (activities/step-runtime.ts).
   */
  ifRefused?: (failure: unknown) => AuditWrite;
}

export type AuditWriterDeps = Pick<ActivityDeps, 'db' | 'clock' | 'audit'>;

/** The rows of one write, and the decisions among its records the policy left out (AuditGate.decisionRecorded). */
export interface PendingGroup extends AuditGroup {
  unwrittenDecisions: JsonObject[];
  /** The rows of the write's ifRefused, under the same policy. */
  ifRefused?: (failure: unknown) => PendingGroup;
}

/**
 * The rows of one write that the policy admits, keyed `<turn id>@<run id>/<segment>/<suffix>` (auditKeyRoot).
 * A dropped row keeps its index free, so the kept rows' keys do not depend on what the policy dropped.
 */
export function auditGroup(
  deps: Pick<AuditWriterDeps, 'clock' | 'audit'>,
  policy: AuditPolicy,
  write: AuditWrite
): PendingGroup {
  const emittedAt = deps.clock.now().toISOString();
  const suffix = write.suffix ?? ((i: number) => String(i));
  const shared = sharedMeta(write.session, write.turn, emittedAt);
  const { conversationId } = write.turn;
  const runId = currentRunId();
  const root = auditKeyRoot(write.turn.turnId, runId);
  const rows: AuditInsert[] = [];
  const unwrittenDecisions: JsonObject[] = [];
  for (const [index, record] of write.records.entries()) {
    if (
      !admitsAudit(policy, record.stage, record.meta?.intent ?? write.session.intent) ||
      !deps.audit.withinRate(policy.rateLimit, conversationId, record.stage)
    ) {
      if (record.stage === AuditStage.TurnDecision) unwrittenDecisions.push(record.payload);
      continue;
    }
    rows.push({
      conversationId,
      turnNumber: write.turn.turnNumber,
      stage: record.stage,
      payload: payloadContextCapped(record.payload),
      ...(policy.persistMeta ? { meta: metaOf(record, write.session, shared) } : {}),
      idempotencyKey: `${root}/${write.keySegment}/${suffix(index)}`,
      workflowId: write.turn.turnId,
      runId,
    });
  }
  // Index-keyed writes own their whole key segment (of their run only); suffixed ones (error-<attempt>) only add.
  return { rows, replaceUnder: write.suffix ? null : `${root}/${write.keySegment}/`, unwrittenDecisions };
}

/** The writes' groups, each with the rows of its ifRefused under the same policy. */
export function pendingGroups(
  deps: AuditWriterDeps,
  policy: AuditPolicy,
  writes: readonly AuditWrite[]
): PendingGroup[] {
  return writes
    .filter((w) => w.records.length > 0)
    .map((w) => {
      const group = auditGroup(deps, policy, w);
      const { ifRefused } = w;
      return ifRefused
        ? { ...group, ifRefused: (failure: unknown) => auditGroup(deps, policy, ifRefused(failure)) }
        : group;
    });
}
