import { patched } from '@temporalio/workflow';
import type { StepRunsIn } from '../core/turn/step-runner';

const declared: string[] = [];

/** Declares a patch of the turn workflow: every one is listed in TURN_PATCHES, in the order declared. */
function patch(id: string): string {
  declared.push(id);
  return id;
}

/** Histories from before local-first steps scheduled every `model` and `remote` step as a regular activity. */
export const LOCAL_FIRST_PATCH = patch('local-first-steps');

/** Histories from before step runs scheduled every local step as a local activity of its own. */
export const STEP_RUNS_PATCH = patch('local-step-runs');

/**
 * Histories from before it ran McpPrepare and McpFinalize as local activities of their own, never
 * in a step run, and every regular step as a regular activity of its own (no RegularSteps). It
 * implies STEP_RUNS_PATCH (and everything that one implies), so a new history records this one
 * marker only.
 */
export const WIDE_STEP_RUNS_PATCH = patch('wide-step-runs');

/** The patch that guards holding a failed tool call (#22): V2 histories without it never held one. */
export const TOOL_HOLD_PATCH = patch('tool-hold-for-operator');

/** The patch that lets a request's direct tool call (D21) hold too: older histories answered with the failure. */
export const DIRECT_TOOL_HOLD_PATCH = patch('direct-tool-hold-for-operator');

/**
 * The patch that puts TurnOutcome back to RUNNING once an approval is decided or expires, as a resolved
 * hold always did: without it the turn kept AWAITING_APPROVAL while the approved tool ran, and the
 * pending-approvals gauge, the runbook's query and the console counted it. Histories without it never
 * issued that upsert.
 */
export const APPROVAL_RESUME_PATCH = patch('approval-resumes-running');

/**
 * The patch that writes a turn's failure row from the workflow when no step did (a last attempt cut off by its
 * timeout, an operator's fail): histories without it failed without scheduling TurnFailure.
 */
export const TURN_FAILURE_ROW_PATCH = patch('turn-failure-row');

/**
 * The patch that writes a turn's failure row from the workflow when the step that failed it could not: its last
 * attempt met a database still down once its outage wait ran out, and its failure says its rows are unwritten
 * (FAILURE_ROWS_UNWRITTEN_DETAIL). Histories without it took every failure reporting its attempt as written.
 */
export const UNWRITTEN_FAILURE_ROW_PATCH = patch('unwritten-failure-row');

/**
 * The patch that schedules TurnFailure as a regular activity retried for as long as the database stays unreachable
 * (TURN_FAILURE_RETRY, core/turn/steps.ts), so a failed turn's row outlasts an outage longer than its waits: histories
 * without it ran TurnFailure as a local activity of 5 attempts, and a turn whose database was down past them failed
 * without its row.
 */
export const TURN_FAILURE_OUTLASTS_OUTAGE_PATCH = patch('turn-failure-outlasts-outage');

/**
 * The patch that records a parked turn's Intent, State and ConfigVersion with its AWAITING_APPROVAL or HELD
 * TurnOutcome, so `Intent = '…' AND TurnOutcome = 'HELD'` finds it while it waits: histories without it
 * upserted TurnOutcome alone, and a turn got its position only when it ended.
 */
export const PARK_POSITION_PATCH = patch('park-records-position');

/**
 * The patch that writes MCP_TOOL_APPROVAL_REQUESTED when a turn parks on an approval (an McpToolHold local activity
 * before it parks, as a hold writes TOOL_HELD), so the conversation's stream and GET /conversation/{id} show the
 * pending call while it waits: histories without it wrote the row only with the decision, in the next activity.
 */
export const APPROVAL_REQUEST_ROW_PATCH = patch('approval-request-row');

/**
 * The patch that writes a cancelled turn's failure row (TURN_CANCELLED) before the turn ends CANCELLED, so its trail
 * and the stream end with a failure event: histories without it ended at the cancellation with no row.
 */
export const TURN_CANCELLED_ROW_PATCH = patch('turn-cancelled-row');

/**
 * The patch that sets a cancelled turn's TurnOutcome to CANCELLED (with its Intent, State and ConfigVersion) as it
 * ends, so `TurnOutcome = 'CANCELLED'` finds it: histories without it kept the TurnOutcome they had (none, RUNNING,
 * AWAITING_APPROVAL, HELD).
 */
export const CANCELLED_OUTCOME_PATCH = patch('cancelled-turn-outcome');

/**
 * The patch that has the planner loop refuse a call repeating the turn's direct tool call its tool failed
 * (core/mcp/direct-failure.ts), ending the loop with that failure instead: histories without it sent the call again,
 * a second request to an upstream that had asked to wait or refused it.
 */
export const FAILED_DIRECT_REPEAT_PATCH = patch('planner-refuses-failed-direct-call');

/**
 * The patch that lets a tool call's cancellation (the turn cancelled while its McpToolCall or DirectToolCall ran) end
 * the turn as cancelled: histories without it took the cancelled call for the tool's failure (a ToolCallFailure of
 * type CancelledFailure), which the planner loop recorded as TOOL_FAILED (decisionLog, applyToolFailure) and a
 * holding tool held, before the next activity met the cancellation.
 */
export const CANCELLED_TOOL_CALL_PATCH = patch('cancelled-tool-call-stands');

/**
 * The patch that holds a NON_IDEMPOTENT_WRITE whose last attempt a stopping worker cut (sdk-core's WorkerShutdown
 * failure) for an operator, its outcome unknown, as a timed-out one is: histories without it took that failure for the
 * tool's, which the planner answered or a direct call recorded as its result, though the write may have happened.
 */
export const SHUTDOWN_CUT_WRITE_PATCH = patch('shutdown-cut-write-held');

/**
 * The patch that records what a parked turn waits on in its memo (PARKED_MEMO_KEY: the approval's call, the held call)
 * as it parks, and clears it as it resumes, so operators' lists and the console read it there instead of querying the
 * turn: a query answered on a task that schedules a quick local activity can move what follows the activity into
 * another task, a history that no longer replays. Histories without it issued no memo upsert when parking.
 */
export const PARKED_MEMO_PATCH = patch('parked-call-memo');

/**
 * The patch that keeps the reason an operator gave for failing a held call out of the TOOL_HOLD_FAILED failure's
 * message, in its details instead (OPERATOR_REASON_DETAIL, core/mcp/hold.ts): payloads, which the codecs encrypt with
 * PAYLOAD_ENCRYPTION_KEYS set, where a message is stored as written. Histories without it quote the reason in the
 * message (and in the turn's TURN_FAILED around it); readers take either (operatorFailedText).
 */
export const HOLD_FAIL_REASON_DETAIL_PATCH = patch('hold-fail-reason-in-details');

/**
 * Every patch this build's turn workflows know, in the order they were added: a new one is declared (patch()) after
 * the last. A worker names how many it knows in its identity (observability/turn-patches.ts), and a build's list
 * begins with every older build's, so that number says which: a turn that recorded a patch a worker lacks
 * (TemporalChangeVersion) fails every workflow task on it (TMPRL1100), so a rollback must wait for such turns to end.
 */
export const TURN_PATCHES: readonly string[] = declared;

/**
 * Which of the changes made to the turn workflow since conversationTurnV2 a turn runs with. The
 * turn executor asks here, never `patched()` itself, so one executor serves both workflow types.
 */
export interface TurnVersions {
  /** Which step runs the turn has: wide ones, of the pipeline's local steps only, or none. */
  stepRunsIn(): StepRunsIn;
  /** Whether local-first steps are attempted locally before going regular. */
  localFirst(): boolean;
  /** Whether a planner tool call out of retries may hold for an operator (#22). */
  toolHold(): boolean;
  /** Whether a request's direct tool call may hold too. */
  directToolHold(): boolean;
  /** Whether TurnOutcome goes back to RUNNING after an approval; asked only when one was awaited. */
  approvalResume(): boolean;
  /** Whether a failed turn has TurnFailure write its failure row; asked only when the turn fails. */
  failureRow(): boolean;
  /** Whether TurnFailure writes the row a step's last attempt could not store; asked only when the step says so. */
  unwrittenFailureRow(): boolean;
  /** Whether TurnFailure is a regular activity that outlasts an outage; asked only when it is scheduled. */
  failureRowOutlastsOutage(): boolean;
  /** Whether a parked turn records its position (Intent, State, ConfigVersion); asked only when it parks. */
  parkPosition(): boolean;
  /** Whether an approval's request row is written as the turn parks; asked only when an approval is awaited. */
  approvalRequestRow(): boolean;
  /** Whether a cancelled turn writes its TURN_CANCELLED row; asked only when the turn is cancelled. */
  cancelledRow(): boolean;
  /** Whether a cancelled turn records TurnOutcome CANCELLED; asked only when the turn is cancelled, after its row. */
  cancelledOutcome(): boolean;
  /** Whether the planner may not repeat a direct call its tool failed; asked only when the planner asks for one. */
  failedDirectRepeatRefused(): boolean;
  /** Whether a cancelled tool call ends the turn cancelled, not as the tool's failure; asked only when one is. */
  cancelledToolCallStands(): boolean;
  /** Whether a write cut by a stopping worker is of unknown outcome, so held; asked only when one's last attempt is. */
  shutdownCutWriteHeld(): boolean;
  /** Whether a parked turn records what it waits on in its memo; asked only when it parks, after parkPosition. */
  parkedMemo(): boolean;
  /** Whether an operator's fail carries their reason in details, not its message; asked only when one fails a hold. */
  holdFailReasonInDetails(): boolean;
}

/**
 * Asked by every workflow type, V3 too: it came after V3 shipped, and a V3 turn parked on an approval
 * when it did must replay without the upsert. Asked only once an approval has been awaited, so turns
 * that never park record no marker.
 */
const approvalResume = (): boolean => patched(APPROVAL_RESUME_PATCH);

/** Asked by V2 and V3 alike, on the failure path only, so turns that complete record no marker. */
const failureRow = (): boolean => patched(TURN_FAILURE_ROW_PATCH);

/** Asked by V2 and V3 alike, only when a turn fails on a step that could not store its failure rows. */
const unwrittenFailureRow = (): boolean => patched(UNWRITTEN_FAILURE_ROW_PATCH);

/** Asked by V2 and V3 alike, only when a failed turn schedules TurnFailure. */
const failureRowOutlastsOutage = (): boolean => patched(TURN_FAILURE_OUTLASTS_OUTAGE_PATCH);

/** Asked by every workflow type, each time the turn parks, so turns that never park record no marker. */
const parkPosition = (): boolean => patched(PARK_POSITION_PATCH);

/** Asked by V2 and V3 each time an approval is awaited, before the turn parks; turns that never do record no marker. */
const approvalRequestRow = (): boolean => patched(APPROVAL_REQUEST_ROW_PATCH);

/** Asked by V2 and V3 alike, only when the turn is cancelled, so turns that are not record no marker. */
const cancelledRow = (): boolean => patched(TURN_CANCELLED_ROW_PATCH);

/** Asked by V2 and V3 alike, only when the turn is cancelled, so turns that are not record no marker. */
const cancelledOutcome = (): boolean => patched(CANCELLED_OUTCOME_PATCH);

/** Asked by V2 and V3 alike, only when the planner repeats a failed direct call, so other turns record no marker. */
const failedDirectRepeatRefused = (): boolean => patched(FAILED_DIRECT_REPEAT_PATCH);

/** Asked by V2 and V3 alike, only when a tool call is cancelled, so other turns record no marker. */
const cancelledToolCallStands = (): boolean => patched(CANCELLED_TOOL_CALL_PATCH);

/** Asked by V2 and V3 alike, only when a stopping worker cut a write's last attempt, so other turns record no marker. */
const shutdownCutWriteHeld = (): boolean => patched(SHUTDOWN_CUT_WRITE_PATCH);

/** Asked by every workflow type, each time the turn parks, so turns that never park record no marker. */
const parkedMemo = (): boolean => patched(PARKED_MEMO_PATCH);

/** Asked by V2 and V3 alike, only when an operator fails a held call, so other turns record no marker. */
const holdFailReasonInDetails = (): boolean => patched(HOLD_FAIL_REASON_DETAIL_PATCH);

function patchedStepRunsIn(): StepRunsIn {
  if (patched(WIDE_STEP_RUNS_PATCH)) return 'wide';
  return patched(STEP_RUNS_PATCH) ? 'pipeline' : null;
}

/**
 * conversationTurnV2: each change is asked of the history (`patched()`), so turns started before it
 * finish and replay as they ran. Step runs came after local-first steps, so their patches imply it.
 * Asking records a marker, and sdk-core upserts TemporalChangeVersion with it: one search-attribute
 * upsert (a billable action, a visibility write) per turn.
 */
export const PATCHED_VERSIONS: TurnVersions = {
  stepRunsIn: patchedStepRunsIn,
  localFirst: () => patchedStepRunsIn() !== null || patched(LOCAL_FIRST_PATCH),
  toolHold: () => patched(TOOL_HOLD_PATCH),
  directToolHold: () => patched(DIRECT_TOOL_HOLD_PATCH),
  approvalResume,
  failureRow,
  unwrittenFailureRow,
  failureRowOutlastsOutage,
  parkPosition,
  approvalRequestRow,
  cancelledRow,
  cancelledOutcome,
  failedDirectRepeatRefused,
  cancelledToolCallStands,
  shutdownCutWriteHeld,
  parkedMemo,
  holdFailReasonInDetails,
};

/**
 * conversationTurnV3: every change made before it, asked of nothing. A turn is a workflow of its own, so a
 * new workflow type is the whole version: no patch marker and no TemporalChangeVersion upsert per turn.
 * Changes made since are asked like V2's (approvalResume, failureRow, unwrittenFailureRow, failureRowOutlastsOutage,
 * parkPosition, approvalRequestRow, cancelledRow, cancelledOutcome, failedDirectRepeatRefused,
 * cancelledToolCallStands, shutdownCutWriteHeld, parkedMemo, holdFailReasonInDetails).
 */
export const CURRENT_VERSIONS: TurnVersions = {
  stepRunsIn: () => 'wide',
  localFirst: () => true,
  toolHold: () => true,
  directToolHold: () => true,
  approvalResume,
  failureRow,
  unwrittenFailureRow,
  failureRowOutlastsOutage,
  parkPosition,
  approvalRequestRow,
  cancelledRow,
  cancelledOutcome,
  failedDirectRepeatRefused,
  cancelledToolCallStands,
  shutdownCutWriteHeld,
  parkedMemo,
  holdFailReasonInDetails,
};
