import type { temporal } from '@temporalio/proto';
import { oneLineText } from '../../core/text/one-line-text';
import { decodePayload } from './entries';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type UpdateRequest = temporal.api.update.v1.IRequest;

/**
 * An operator's decision as its update's request holds it: an approval (decideApproval, D16) or a held tool call's
 * resolution (resolveHeldTool, #22). `convengine history` and the console's story both say it from here.
 */
export interface OperatorDecision {
  update: 'decideApproval' | 'resolveHeldTool';
  /** approve or reject; retry, skip, fail or markDone. */
  action: string;
  decidedBy: string | null;
  reason: string | null;
  /** The call it names; null when the decision named none (it was for the call waiting when it arrived). */
  callIndex: number | null;
}

/**
 * An accepted update's request. An update reapplied by `temporal workflow reset` is accepted without it: its
 * Admitted event (origin REAPPLY) holds it, the event the acceptance was sequenced after or the one of the same
 * update id.
 */
export function acceptedUpdateRequest(
  event: HistoryEvent,
  events: ReadonlyMap<number, HistoryEvent>
): UpdateRequest | null {
  const accepted = event.workflowExecutionUpdateAcceptedEventAttributes;
  if (!accepted) return null;
  if (accepted.acceptedRequest?.input?.name) return accepted.acceptedRequest;
  const admitted = (e: HistoryEvent | undefined) => e?.workflowExecutionUpdateAdmittedEventAttributes?.request;
  return (
    admitted(events.get(Number(accepted.acceptedRequestSequencingEventId ?? 0))) ??
    [...events.values()].map(admitted).find((r) => r?.meta?.updateId === accepted.protocolInstanceId) ??
    null
  );
}

/** Characters of a reason shown on a timeline's one line; the whole of it is in the decision's audit row. */
const SHOWN_REASON_CHARS = 300;

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : null);

/** The decision an accepted update carries, or null for any other event or update. */
export function operatorDecisionOf(
  event: HistoryEvent,
  events: ReadonlyMap<number, HistoryEvent>
): OperatorDecision | null {
  const request = acceptedUpdateRequest(event, events);
  const update = request?.input?.name;
  if (update !== 'decideApproval' && update !== 'resolveHeldTool') return null;
  const raw = decodePayload(request?.input?.args?.payloads?.[0]);
  const input = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const callIndex = input['callIndex'];
  return {
    update,
    action: text(input[update === 'decideApproval' ? 'decision' : 'action']) ?? '?',
    decidedBy: text(input['decidedBy']),
    reason: text(input['reason']),
    callIndex: typeof callIndex === 'number' && Number.isInteger(callIndex) ? callIndex : null,
  };
}

/**
 * What was decided, by whom and why, on one line (`reject (call 2) by ann — not this customer`): each part a person
 * wrote made fit for it. `convengine history` puts the update's name before it, the console's story its kind.
 */
export function operatorDecisionText(d: OperatorDecision): string {
  const call = d.callIndex !== null ? ` (call ${d.callIndex})` : '';
  const by = d.decidedBy !== null ? oneLineText(d.decidedBy) : '(unnamed)';
  const reason = d.reason !== null ? ` — ${oneLineText(d.reason, SHOWN_REASON_CHARS)}` : '';
  return `${oneLineText(d.action)}${call} by ${by}${reason}`;
}
