import type { temporal } from '@temporalio/proto';
import { cutText } from '../../core/text/cut-text';
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

/**
 * Text a person wrote (a reason, a name), fit for one line of a terminal or the console: line breaks and tabs are
 * spaces, and a control character (an escape sequence would drive the terminal) or a bidirectional override (it
 * would reorder the line) is shown as its code point, as the console shows them (console/lib/dom.js `visible`).
 */
export function oneLineText(text: string, maxChars = Infinity): string {
  const line = text.replace(/[\t\n\r]+/g, ' ').trim();
  const cut = line.length > maxChars ? `${cutText(line, maxChars)}…` : line;
  // eslint-disable-next-line no-control-regex -- showing the controls is the point
  return cut.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => {
    return `⟨U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`;
  });
}

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
