import { condition, setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
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
  if (park.details !== undefined) setCurrentDetails(park.details);
  const decided = await condition(park.decided, park.timeoutMs);
  state.status = TurnStatus.Running;
  if (park.resumeOutcome()) upsertSearchAttributes([{ key: TurnOutcomeKey, value: TurnOutcomeValue.Running }]);
  if (park.details !== undefined) setCurrentDetails('');
  return decided;
}
