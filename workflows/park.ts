import { condition, setCurrentDetails, upsertMemo, upsertSearchAttributes } from '@temporalio/workflow';
import { cutText } from '../core/text/cut-text';
import { PARKED_MEMO_KEY, type ParkedCall } from './messages';
import { positionAttributes, TurnOutcomeKey, TurnOutcomeValue, type TurnPosition } from './search-attributes';
import { TurnStatus } from './turn-status';
import type { TurnState } from './turn-state';

/** How a turn waits on a person: an approval (D16) or a held tool call (#22). */
export interface Park {
  status: typeof TurnStatus.AwaitingApproval | typeof TurnStatus.Held;
  /** True once the person's decision is in (the update handler set it). */
  decided(): boolean;
  timeoutMs: number;
  /** The current details while parked (the Temporal UI shows them); not history. */
  details?: string;
  /**
   * Whether TurnOutcome goes back to RUNNING when the wait ends. The upsert is a command, so a turn
   * parked before it existed must not issue it on replay: the approval asks a patch, the hold always had it.
   */
  resumeOutcome(): boolean;
  /**
   * Where the turn stands, recorded with its TurnOutcome so a query by Intent or State finds it while it
   * waits; null records none (a turn parked before TurnVersions.parkPosition, which asks the patch here).
   */
  position(): TurnPosition | null;
  /**
   * What the turn waits on, recorded in its memo while it waits (ParkedCall); null records none (a turn parked before
   * TurnVersions.parkedMemo, which asks the patch here).
   */
  memo(): ParkedCall | null;
}

/**
 * Characters of a pending call's arguments (as JSON) and of a held call's error the memo keeps: a memo counts against
 * Temporal's memo size limit (2 MB by default), past which the task that upserts it fails. Both are whole in the
 * turn's rows (MCP_TOOL_APPROVAL_REQUESTED, TOOL_HELD).
 */
export const PARKED_MEMO_TEXT_MAX = 16 * 1024;

/** The call as the memo records it: big arguments and errors shortened (PARKED_MEMO_TEXT_MAX). */
function memoOf(call: ParkedCall): ParkedCall {
  const { pending, held } = call;
  const characters = pending ? JSON.stringify(pending.args).length : 0;
  const args =
    characters > PARKED_MEMO_TEXT_MAX
      ? { _elided: `the arguments are ${characters} characters as JSON; MCP_TOOL_APPROVAL_REQUESTED holds them` }
      : pending?.args;
  const error =
    held && held.error.length > PARKED_MEMO_TEXT_MAX ? `${cutText(held.error, PARKED_MEMO_TEXT_MAX)}…` : null;
  return {
    pending: pending && args ? { ...pending, args } : pending,
    held: held && error !== null ? { ...held, error } : held,
  };
}

/**
 * Parks the turn until the decision or the timeout; true when decided. While parked, the status and
 * TurnOutcome say why (the API's milestone, `convengine_pending_approvals`, the runbook's and the
 * console's queries look for them); afterwards the turn is RUNNING again until it ends, so none of
 * them counts a turn that no longer waits.
 */
export async function parkTurn(state: TurnState, park: Park): Promise<boolean> {
  state.status = park.status;
  upsertSearchAttributes([{ key: TurnOutcomeKey, value: park.status }, ...positionAttributes(park.position())]);
  const memo = park.memo();
  if (memo) upsertMemo({ [PARKED_MEMO_KEY]: memoOf(memo) });
  if (park.details !== undefined) setCurrentDetails(park.details);
  const decided = await condition(park.decided, park.timeoutMs);
  state.status = TurnStatus.Running;
  if (park.resumeOutcome()) upsertSearchAttributes([{ key: TurnOutcomeKey, value: TurnOutcomeValue.Running }]);
  if (memo) upsertMemo({ [PARKED_MEMO_KEY]: null });
  if (park.details !== undefined) setCurrentDetails('');
  return decided;
}
