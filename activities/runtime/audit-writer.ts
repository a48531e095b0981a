import { AsyncLocalStorage } from 'node:async_hooks';
import { AuditStage } from '../../core/audit/payloads';
import type { AuditPolicy } from '../../core/audit/policy';
import type { JsonObject } from '../../core/json';
import { writeAuditBatch } from '../../db/repositories/audit';
import type { ActivityDeps } from '../deps';
import { activityContext, attemptAbandoned } from './activity-context';
import { runEndKeys } from './audit-keys';
import { pendingGroups, type AuditWrite, type AuditWriterDeps, type PendingGroup } from './audit-rows';
import { awaitDatabase, outageWaitFor } from './database-outage';
import {
  fromDatabaseError,
  isRunEndedFailure,
  runEndedFailure,
  toActivityFailure,
  withFailureRowsUnwritten,
} from './failure';

/** The audit groups held back by the innermost withHeldAudits, if any. */
const held = new AsyncLocalStorage<PendingGroup[]>();

/**
 * Writes the audits the policy admits idempotently, all writes in one round trip: existing keys are
 * rewritten in place, never duplicated, so an activity retried within its run leaves exactly what its
 * last attempt recorded (another run's keys differ: auditKeyRoot). Inside withHeldAudits they join its
 * one write instead.
 */
export async function writeAudits(deps: AuditWriterDeps, policy: AuditPolicy, ...writes: AuditWrite[]): Promise<void> {
  const groups = pendingGroups(deps, policy, writes);
  const holding = held.getStore();
  if (holding) holding.push(...groups);
  else if (groups.length > 0) await writeBatch(deps, groups);
}

/**
 * The rows of an attempt that has failed (a step's, with its failure rows), written as writeAudits writes them but
 * best effort: the attempt's own failure matters more than a failed write. False when its failure rows could not be
 * stored (refusedBatch), for the attempt's failure to say so; true once stored, or held for the run's one write
 * (withHeldAudits says it of the run's failure).
 */
export async function writeFailedAttempt(
  deps: AuditWriterDeps,
  policy: AuditPolicy,
  ...writes: AuditWrite[]
): Promise<boolean> {
  const groups = pendingGroups(deps, policy, writes);
  const holding = held.getStore();
  if (holding) holding.push(...groups);
  if (holding || groups.length === 0) return true;
  const refused = await refusedBatch(deps, groups, false).catch(unkept);
  return refused === null || refused.failureRowsKept;
}

/**
 * Runs `work` (a step run: several steps in one activity) with every audit write it makes held
 * back, then writes them all in ONE round trip before the activity completes, the way the Java
 * engine's DEFERRED_BULK persistence flushes at the end. If `work` fails, what it held is written
 * on a best-effort basis (its failure matters more) and the failure is rethrown, saying so when its
 * failure rows could not be stored. Either way the rows are in ce_audit before Temporal records the
 * activity's outcome, and a retry rewrites them.
 */
export async function withHeldAudits<T>(deps: Pick<ActivityDeps, 'db' | 'audit'>, work: () => Promise<T>): Promise<T> {
  const groups: PendingGroup[] = [];
  let result: T;
  try {
    result = await held.run(groups, work);
  } catch (err) {
    const refused = await refusedBatch(deps, groups, false).catch(unkept);
    throw refused && !refused.failureRowsKept ? withFailureRowsUnwritten(err) : err;
  }
  await writeBatch(deps, groups);
  return result;
}

/** The write of an attempt that goes on, which a refused batch fails (refusedBatch). */
async function writeBatch(deps: Pick<ActivityDeps, 'db' | 'audit'>, groups: PendingGroup[]): Promise<void> {
  const refused = await refusedBatch(deps, groups, true);
  if (refused) throw refused.failureRowsKept ? refused.failure : withFailureRowsUnwritten(refused.failure);
}

/** A batch that could not be stored: the failure it fails the attempt with, and whether its failure rows were kept. */
interface RefusedBatch {
  failure: unknown;
  failureRowsKept: boolean;
}

/** A write that failed in an unforeseen way: nothing is known to be stored. */
const UNKEPT: RefusedBatch = { failure: null, failureRowsKept: false };

/** A best-effort write that failed: UNKEPT, unless its run has ended, which ends the attempt (runEndedFailure). */
function unkept(err: unknown): RefusedBatch {
  if (isRunEndedFailure(err)) throw err;
  return UNKEPT;
}

/**
 * Stores the batch, or says how it was refused, its database error typed as a step's would be
 * (activities/runtime/failure.ts): a row PostgreSQL refuses (SQLSTATE 22/54) is refused the same way on every
 * attempt, so the activity is not retried for it. The refusal fails the attempt, which still leaves its failure rows
 * (storeRefused); `failsAttempt` false when the attempt has already failed (a failed step's rows, a failed run's held
 * rows), so only the failure rows the batch carried are kept. A database that is down for now is waited for once (a
 * failover), and the batch written again. Null once stored, or when Temporal has given up on the attempt.
 */
async function refusedBatch(
  deps: Pick<ActivityDeps, 'db' | 'audit'>,
  groups: PendingGroup[],
  failsAttempt: boolean
): Promise<RefusedBatch | null> {
  if (attemptAbandoned()) return null;
  for (let tries = 1; ; tries++) {
    try {
      await store(deps, groups);
      return null;
    } catch (err) {
      if (isRunEndedFailure(err)) throw err;
      // The database went away (a failover): once it is back, the rows are written again (each under its key).
      const running = activityContext()?.info.activityType ?? '';
      if (tries === 1 && (await awaitDatabase(deps.db, outageWaitFor(running, err)))) continue;
      const failure = fromDatabaseError(err);
      const failureRowsKept = await storeRefused(deps, groups, failsAttempt ? failure : null);
      return { failure: toActivityFailure(failure), failureRowsKept };
    }
  }
}

/** The stages that say an attempt or a turn failed: what a refused batch must not take with it. */
const FAILURE_STAGES: ReadonlySet<string> = new Set([
  AuditStage.StepError,
  AuditStage.EngineKnownFailure,
  AuditStage.EngineUnknownFailure,
]);

const REFUSED_BATCH = { _elided: 'left out: the batch this row was first written with was refused' };

/**
 * What a refused batch still leaves, in a statement of its own (the batch's was one statement: nothing of it is
 * half-written): the failure rows it carried (a step failed), else, when `failure` is the refusal that fails the
 * attempt, the rows its last step's write asks for then (ifRefused). Their `_meta` leaves out the session's params
 * and context, the part of a row likeliest to be what was refused. Best effort: the attempt's failure is thrown
 * whatever happens here, and a batch refused for a lost connection is most likely refused again. True when failure
 * rows were stored.
 */
async function storeRefused(
  deps: Pick<ActivityDeps, 'db' | 'audit'>,
  groups: readonly PendingGroup[],
  failure: unknown
): Promise<boolean> {
  let rows = groups.flatMap((g) => g.rows.filter((row) => FAILURE_STAGES.has(row.stage)));
  const ifRefused = failure === null ? undefined : [...groups].reverse().find((g) => g.ifRefused)?.ifRefused;
  if (rows.length === 0 && ifRefused) rows = [...ifRefused(failure).rows];
  if (rows.length === 0) return false;
  const shared = new Map<JsonObject, JsonObject>();
  const withoutSession = (part: JsonObject): JsonObject => {
    const kept = shared.get(part) ?? {
      ...part,
      inputParams: REFUSED_BATCH,
      userInputParams: REFUSED_BATCH,
      context: REFUSED_BATCH,
    };
    shared.set(part, kept);
    return kept;
  };
  const salvaged = rows.map((row) =>
    row.meta ? { ...row, meta: { own: row.meta.own, shared: withoutSession(row.meta.shared) } } : row
  );
  return store(deps, [{ rows: salvaged, replaceUnder: null, unwrittenDecisions: [] }]).then(
    () => true,
    (err: unknown) => unkept(err).failureRowsKept
  );
}

/**
 * Stores the groups and tells the gate of the decisions recorded: each TURN_DECISION row the first time it
 * is stored, so a retried step, a re-run step run or a failed attempt's best-effort write rewrites it and
 * counts nothing more. A decision the policy leaves out has no row to tell: it is told as its write is
 * stored, once per attempt that carries it. Refused whole once the run has its last row (runEndKeys): an attempt
 * that has not heard of its cancellation yet (it hears with a heartbeat's answer) ends there (runEndedFailure).
 */
async function store(deps: Pick<ActivityDeps, 'db' | 'audit'>, groups: readonly PendingGroup[]): Promise<void> {
  const hear = deps.audit.decisionRecorded?.bind(deps.audit);
  const fencedBy = runEndKeys(groups.flatMap((g) => g.rows));
  const written = await writeAuditBatch(deps.db, groups, hear ? [AuditStage.TurnDecision] : [], fencedBy);
  if (written.fenced) throw runEndedFailure();
  const firstStored = new Set(written.firstStored);
  if (!hear) return;
  for (const group of groups) {
    for (const row of group.rows) if (firstStored.has(row.idempotencyKey)) hear(row.payload);
    group.unwrittenDecisions.forEach((decision) => hear(decision));
  }
}
