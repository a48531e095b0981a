import { audit, type AuditRecord } from '../core/audit';
import type { AuditPolicy } from '../core/audit/policy';
import {
  AuditStage,
  type EngineFailurePayload,
  type StepErrorPayload,
  type StepExitPayload,
  type StepFramePayload,
} from '../core/audit/payloads';
import type { ConfigSnapshot } from '../core/config/types';
import { errorMessage, ErrorType, isEngineError } from '../core/errors';
import { shareToolResults } from '../core/mcp/context';
import { StepScope } from '../core/step/scope';
import type { StepInput, StepOutput, StepReply } from '../core/turn/contracts';
import { toStepResult } from '../core/turn/step-result';
import type { Session } from '../core/session';
import type { ActivityDeps } from './deps';
import { currentAttempt, isLastAttempt } from './runtime/attempt';
import { whileHeartbeating } from './runtime/heartbeat';
import { throwIfCancelled } from './runtime/activity-context';
import type { AuditWrite } from './runtime/audit-rows';
import { writeAudits, writeFailedAttempt } from './runtime/audit-writer';
import { decisionAudit } from './turn-decision';
import { fromDatabaseError, isRetryableFailure, toActivityFailure, withFailureRowsUnwritten } from './runtime/failure';
import { attemptsLocally, LocalAttempt } from './runtime/local-attempt';
import { awaitDatabase, outageWaitFor } from './runtime/database-outage';
import { lastProgress, verboseAudit } from './runtime/verbose';

export interface StepContext<I extends StepInput = StepInput> {
  input: I;
  snapshot: ConfigSnapshot;
  deps: ActivityDeps;
  /** Working copy of the session plus an audit collector; audits emitted here survive a failure. */
  scope: StepScope;
}

export type StepFunction<I extends StepInput = StepInput, O extends StepOutput = StepOutput> = (
  ctx: StepContext<I>
) => Promise<O>;

export interface StepDefinition<I extends StepInput = StepInput, O extends StepOutput = StepOutput> {
  /** Step name as in core/turn/contracts (audited as `step`, `<name>Step` as `stepClass`). */
  name: string;
  run: StepFunction<I, O>;
  /** The first step of a turn pins the current config version instead of reading the pinned one. */
  pinsConfig?: boolean;
  /**
   * False for a tool call: its failure for good is the planner's observation (core/mcp/loop.ts) or a
   * held call, not the turn's. Any other step failing for good fails the turn (the driver catches nothing else).
   */
  failureEndsTurn?: boolean;
}

async function snapshotFor(deps: ActivityDeps, input: StepInput, pins: boolean): Promise<ConfigSnapshot> {
  return pins ? deps.configStore.current() : deps.configStore.get(input.session.configVersion);
}

/** An engine error's code, else the class name of the unexpected error (the API shows that as INTERNAL). */
const errorTypeOf = (err: unknown): string =>
  isEngineError(err) ? err.type : err instanceof Error ? err.name : 'Error';

function errorFrame(name: string, err: unknown, durationMs: number): AuditRecord {
  return audit(AuditStage.StepError, {
    step: name,
    stepClass: `${name}Step`,
    durationMs,
    errorType: errorTypeOf(err),
    errorMessage: errorMessage(err),
    _errorMeta: { retryable: isRetryableFailure(err), attempt: currentAttempt() },
  } satisfies StepErrorPayload);
}

/**
 * The turn's last row when this attempt's failure fails it for good (no retry follows): ENGINE_KNOWN_FAILURE
 * for an engine error, ENGINE_UNKNOWN_FAILURE for anything else, as the Java controller writes them. The
 * workflow writes nothing when it fails; the step that fails it is the one that knows, and writes it once.
 */
function turnFailure(def: Pick<StepDefinition, 'name' | 'failureEndsTurn'>, err: unknown): AuditRecord[] {
  const retryable = isRetryableFailure(err);
  if (def.failureEndsTurn === false || (retryable && !isLastAttempt())) return [];
  const known = isEngineError(err);
  const failure = {
    step: def.name,
    stepClass: `${def.name}Step`,
    errorCode: errorTypeOf(err),
    message: errorMessage(err),
    recoverable: retryable,
    attempt: currentAttempt(),
  } satisfies EngineFailurePayload;
  return [known ? audit(AuditStage.EngineKnownFailure, failure) : audit(AuditStage.EngineUnknownFailure, failure)];
}

/**
 * What arrived with the input to be recorded before the step's own rows: driver decisions
 * (TURN_DECISION, V2) and audits decided in workflow code (carryAudits). Written in the same round
 * trip as the step's rows, each under its own key, so a retry rewrites instead of duplicating.
 */
function arrivedWrites(input: StepInput): AuditWrite[] {
  const writes: AuditWrite[] = (input.decisions ?? []).map(({ seq, decision }) => ({
    turn: input.turn,
    session: input.session,
    keySegment: `decision-${seq}`,
    records: [decisionAudit(decision)],
  }));
  if (input.carryAudits?.length) {
    writes.push({
      turn: input.turn,
      session: input.session,
      keySegment: input.carryKey ?? `${input.callKey}-carried`,
      records: input.carryAudits,
    });
  }
  return writes;
}

/**
 * Turns a step function into an activity function: resolves the pinned config snapshot, runs the
 * step on a private session copy, writes STEP_ENTER / step audits / STEP_EXIT (or STEP_ERROR) to
 * ce_audit idempotently, and converts typed engine errors into Temporal ApplicationFailures.
 */
export function stepActivity<I extends StepInput, O extends StepOutput>(
  def: StepDefinition<I, O>,
  deps: ActivityDeps
): (input: I) => Promise<StepReply<O>> {
  const frame: StepFramePayload = { step: def.name, stepClass: `${def.name}Step` };
  return async (input: I): Promise<StepReply<O>> => {
    const started = deps.clock.now().getTime();
    const elapsed = (): number => deps.clock.now().getTime() - started;
    const enter = audit(AuditStage.StepEnter, { ...frame });
    enter.meta = { intent: input.session.intent, state: input.session.state };
    shareToolResults(input.session);
    const scope = new StepScope(input.session);
    let output: O;
    let snapshot: ConfigSnapshot | null = null;
    const arrived = arrivedWrites(input);
    const progress = stepProgress(deps, frame.stepClass, () => snapshot);
    let entered: AuditRecord[] = [];
    const local = attemptsLocally() ? new LocalAttempt(def.name, deps) : null;
    try {
      snapshot = await snapshotFor(deps, input, def.pinsConfig ?? false);
      entered = progress('STEP_ENTER', scope.session);
      const ctx = { input, snapshot, deps: local?.deps ?? deps, scope };
      output = await whileHeartbeating(() => def.run(ctx));
    } catch (thrown) {
      // Cancelled by Temporal, it ends cancelled whatever the cut I/O threw; its rows would not be written (refusedBatch).
      throwIfCancelled();
      // An escalated local attempt leaves no trace: the regular attempt writes the step's rows.
      const escalation = local?.escalation();
      if (escalation) throw toActivityFailure(escalation);
      const err = fromDatabaseError(thrown);
      // A retired id has no conversation row to hang rows on, and gets none: the turn ends here, having written nothing.
      if (isEngineError(err) && err.type === ErrorType.ConversationRetired) throw toActivityFailure(err);
      const emitted = [enter, ...entered, ...scope.audits, ...progress('STEP_ERROR', scope.session, true)];
      const policy = deps.audit.policy(snapshot);
      // A database that is down for now: wait for it (a failover), so its rows are written and the next attempt runs.
      await awaitDatabase(deps.db, outageWaitFor(def.name, thrown));
      const failure = failureWrite(def, input, scope.session, err, elapsed());
      const stored = await writeFailure(deps, policy, arrived, emitted, failure);
      // Its failure rows unwritten, the attempt says so: the workflow writes the turn's once the database is back.
      throw stored ? toActivityFailure(err) : withFailureRowsUnwritten(toActivityFailure(err));
    }
    const escalation = local?.escalation();
    if (escalation) throw toActivityFailure(escalation);
    const tookMs = elapsed();
    const outcome = output.stop ? 'Stop' : 'Continue';
    const exit = audit(AuditStage.StepExit, { ...frame, outcome, durationMs: tookMs } satisfies StepExitPayload);
    output.session.stepInfos = { ...output.session.stepInfos, [def.name]: 'SUCCESS' };
    const records = [enter, ...entered, ...output.audits, ...progress('STEP_EXIT', output.session), exit];
    const session = output.session;
    await writeAudits(deps, deps.audit.policy(snapshot), ...arrived, {
      turn: input.turn,
      session,
      keySegment: input.callKey,
      records,
      // A batch PostgreSQL refuses fails this attempt as a step's failure would.
      ifRefused: (err) => failureWrite(def, input, session, err, elapsed()),
    });
    return input.reply === 'patch' ? toStepResult(input.session, output, tookMs, lastProgress(records)) : output;
  };
}

/**
 * Progress messages of the step frame (Java VerboseStepHook), under the step's class name: none until the
 * step has its config snapshot.
 */
function stepProgress(
  deps: ActivityDeps,
  stepClass: string,
  snapshotRead: () => ConfigSnapshot | null
): (determinant: string, session: Session, error?: boolean) => AuditRecord[] {
  const frameEvent = { stepName: stepClass, metadata: { stepName: stepClass } };
  return (determinant, session, error = false) => {
    const now = deps.clock.now().toISOString();
    const snapshot = snapshotRead();
    const record = snapshot ? verboseAudit({ snapshot, session, now }, { ...frameEvent, determinant, error }) : null;
    return record ? [record] : [];
  };
}

/** The attempt's STEP_ERROR, keyed per attempt, then the turn's failure row when it is final, keyed once. */
function failureWrite(
  def: Pick<StepDefinition, 'name' | 'failureEndsTurn'>,
  input: StepInput,
  session: Session,
  err: unknown,
  durationMs: number
): AuditWrite {
  return {
    turn: input.turn,
    session,
    keySegment: input.callKey,
    records: [errorFrame(def.name, err, durationMs), ...turnFailure(def, err)],
    suffix: (index) => (index === 0 ? `error-${currentAttempt()}` : 'turn-failure'),
  };
}

/**
 * A failed step's rows: what arrived with it, what it emitted (`emitted`, under the failure's key segment), then its
 * failure rows. Best effort (writeFailedAttempt): the step's own failure is what its attempt throws, saying whether
 * its failure rows were stored.
 */
function writeFailure(
  deps: ActivityDeps,
  policy: AuditPolicy,
  arrived: AuditWrite[],
  emitted: AuditRecord[],
  failure: AuditWrite
): Promise<boolean> {
  const { turn, session, keySegment } = failure;
  return writeFailedAttempt(deps, policy, ...arrived, { turn, session, keySegment, records: emitted }, failure);
}
