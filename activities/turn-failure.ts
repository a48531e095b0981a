import { audit } from '../core/audit';
import { AuditStage, type EngineFailurePayload } from '../core/audit/payloads';
import { isErrorCode } from '../core/errors';
import type { TurnActivities, TurnFailureFacts } from '../core/turn/activities';
import { turnFailureWritten } from '../db/repositories/audit';
import type { ActivityDeps } from './deps';
import { currentRunId } from './runtime/activity-context';
import { RUN_END_SEGMENT } from './runtime/audit-keys';
import { writeAudits } from './runtime/audit-writer';
import { throughOutage, untilDatabaseBack } from './runtime/database-outage';
import { whileHeartbeating } from './runtime/heartbeat';
import { takeHungStep } from './runtime/step-run-progress';
import { isStepRunType } from '../core/turn/step-runs';

/** The row as the step runtime writes it: a code (ours, TIMEOUT, TOOL_HOLD_FAILED) is known, a class name is not. */
function failureRecord(failure: TurnFailureFacts) {
  const payload: EngineFailurePayload = {
    step: failure.step,
    stepClass: `${failure.step}Step`,
    errorCode: failure.type,
    message: failure.message,
    recoverable: !failure.nonRetryable,
    ...(failure.attempt !== null ? { attempt: failure.attempt } : {}),
  };
  const stage = isErrorCode(failure.type) ? AuditStage.EngineKnownFailure : AuditStage.EngineUnknownFailure;
  return audit(stage, payload);
}

/**
 * TurnFailure: the turn's last row when the workflow fails it without a step having written one (the step
 * whose last attempt fails writes it itself; a timeout, an operator's fail, or a last attempt that could not store
 * its rows on a database still down leaves that to the workflow). Like any step, it waits out an outage
 * (databaseOutageMs) in each of its attempts; unlike one, its attempts go on for as long as the database stays
 * unreachable (databaseUnreachableRetryMs, untilDatabaseBack), so the row is written once it is back.
 * Its key names the run, as every audit key does: a reset run's failure is a row of its own, after that run's rows.
 */
export function createTurnFailure(deps: ActivityDeps): TurnActivities['TurnFailure'] {
  const write = writeTurnFailure(deps);
  // A regular activity, it heartbeats as a step does: a connect to a database that does not answer takes its 10 s.
  return (input) => untilDatabaseBack('TurnFailure', () => whileHeartbeating(() => write(input)));
}

/** One attempt of TurnFailure: the row, unless the turn has it already. */
function writeTurnFailure(deps: ActivityDeps): TurnActivities['TurnFailure'] {
  return async ({ turn, session, failure }) => {
    const runId = currentRunId();
    // A step run that timed out is named by the step it hung in, when this worker ran it.
    const hung = runId && failure.type === 'TIMEOUT' && isStepRunType(failure.step) ? takeHungStep(runId) : null;
    // The database may be down still (the step failed on it): the read, as the write, rides out the outage.
    const written = () => turnFailureWritten(deps.db, turn.conversationId, turn.turnNumber, runId);
    if (await throughOutage(deps.db, 'TurnFailure', written)) return;
    // The pinned version is cached in the worker; unreadable (or none yet), the row is kept (full policy).
    const snapshot = session.configVersion ? await deps.configStore.get(session.configVersion).catch(() => null) : null;
    await writeAudits(deps, deps.audit.policy(snapshot), {
      turn,
      session,
      keySegment: RUN_END_SEGMENT,
      records: [
        failureRecord(hung ? { ...failure, step: hung, message: `${failure.message} (in ${failure.step})` } : failure),
      ],
    });
  };
}
