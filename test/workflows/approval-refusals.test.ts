import { ApplicationFailure } from '@temporalio/workflow';
import type { ApprovalDecisionInput, HeldToolDecisionInput } from '../../workflows/messages';
import { applyHoldDecision, validateHoldDecision } from '../../workflows/tool-hold';
import { TurnState } from '../../workflows/turn-state';

/**
 * D16: the decideApproval validator's refusals say why, the same way whenever a late decision comes: while the
 * turn still parks, once it runs the approved tool, or once it waits on a later call (the API answers 409 with
 * the code; docs/config-reference.md lists them).
 */
function parkedOn(state: TurnState, callIndex: number): void {
  state.pending = {
    toolCode: `tool.${callIndex}`,
    args: {},
    callIndex,
    expiresAt: '2030-01-01T00:00:00.000Z',
    intent: 'LOAN',
    state: 'GATE',
  };
}

/** What awaitApproval does once the wait ends (workflows/tool-approval.ts). */
function resumed(state: TurnState, callIndex: number, expired = false): void {
  if (expired) state.settled.set(callIndex, 'EXPIRED');
  state.pending = null;
  state.decision = null;
}

/** The refusal's code, checked to be its type: a typed, non-retryable failure, its message "CODE: explanation". */
function typedCode(err: unknown): string {
  expect(err).toBeInstanceOf(ApplicationFailure);
  const failure = err as ApplicationFailure;
  expect(failure.nonRetryable).toBe(true);
  expect(failure.message.startsWith(`${failure.type}: `)).toBe(true);
  return failure.type ?? '';
}

const EXPIRES_AT = Date.parse('2030-01-01T00:00:00.000Z');

const refusal = (state: TurnState, input: ApprovalDecisionInput, now?: number): string => {
  try {
    state.validateDecision(input, now);
    return 'accepted';
  } catch (err) {
    return typedCode(err);
  }
};

const holdRefusal = (state: TurnState, input: HeldToolDecisionInput, now?: number): string => {
  try {
    validateHoldDecision(state, input, now);
    return 'accepted';
  } catch (err) {
    return typedCode(err);
  }
};

describe('decideApproval refusals', () => {
  it('a second approval of a call is APPROVAL_ALREADY_DECIDED, whatever the turn does by then', () => {
    const state = new TurnState();
    parkedOn(state, 1);
    expect(refusal(state, { decision: 'approve', callIndex: 1 })).toBe('accepted');
    state.applyDecision({ decision: 'approve', callIndex: 1 });
    const again = { decision: 'approve', callIndex: 1 } as const;
    // Decided, not resumed yet.
    expect(refusal(state, again)).toBe('APPROVAL_ALREADY_DECIDED');
    // Resumed: the approved tool runs.
    resumed(state, 1);
    expect(refusal(state, again)).toBe('APPROVAL_ALREADY_DECIDED');
    expect(refusal(state, { decision: 'reject' })).toBe('APPROVAL_ALREADY_DECIDED');
    // Parked on a later call: the old decision names call 1, and is not taken for call 2.
    parkedOn(state, 4);
    expect(refusal(state, again)).toBe('APPROVAL_ALREADY_DECIDED');
    expect(() => state.validateDecision(again)).toThrow('APPROVAL_ALREADY_DECIDED: call #1 was already approved.');
    expect(refusal(state, { decision: 'approve', callIndex: 3 })).toBe('STALE_DECISION');
    expect(refusal(state, { decision: 'approve', callIndex: 4 })).toBe('accepted');
  });

  it('a decision on an approval that expired is APPROVAL_EXPIRED', () => {
    const state = new TurnState();
    parkedOn(state, 2);
    resumed(state, 2, true);
    expect(refusal(state, { decision: 'approve', callIndex: 2 })).toBe('APPROVAL_EXPIRED');
    expect(refusal(state, { decision: 'approve' })).toBe('APPROVAL_EXPIRED');
  });

  it('a decision for a pending call whose expiresAt has passed is APPROVAL_EXPIRED (the timer may not be handled yet)', () => {
    const state = new TurnState();
    parkedOn(state, 4);
    expect(refusal(state, { decision: 'approve', callIndex: 4 }, EXPIRES_AT - 1)).toBe('accepted');
    expect(refusal(state, { decision: 'approve', callIndex: 4 }, EXPIRES_AT)).toBe('APPROVAL_EXPIRED');
    expect(refusal(state, { decision: 'reject' }, EXPIRES_AT + 1)).toBe('APPROVAL_EXPIRED');
    expect(() => state.validateDecision({ decision: 'approve' }, EXPIRES_AT)).toThrow(
      'APPROVAL_EXPIRED: the approval of call #4 expired at 2030-01-01T00:00:00.000Z; the turn goes on without that call.'
    );
  });

  it('a turn that never waited for an approval is NOT_AWAITING_APPROVAL', () => {
    const state = new TurnState();
    expect(refusal(state, { decision: 'approve', callIndex: 1 })).toBe('NOT_AWAITING_APPROVAL');
    expect(refusal(state, { decision: 'approve' })).toBe('NOT_AWAITING_APPROVAL');
  });

  it('malformed approval decisions are refused typed too (INVALID_DECISION, …)', () => {
    expect(refusal(new TurnState(), { decision: 'maybe' } as never)).toBe('INVALID_DECISION');
    // The update sent directly (runbook §5) is held to the API's rule: a decision names who made it.
    const state = new TurnState();
    parkedOn(state, 4);
    expect(refusal(state, { decision: 'approve', callIndex: 4, decidedBy: '' })).toBe('DECIDED_BY_BLANK');
    expect(holdRefusal(state, { action: 'retry', decidedBy: ' ' })).toBe('DECIDED_BY_BLANK');
  });

  it("a held call's decision is refused the same typed way: NOT_HELD, STALE_DECISION, malformed ones", () => {
    const state = new TurnState();
    expect(holdRefusal(state, { action: 'retry' })).toBe('NOT_HELD');
    state.held = { callIndex: 3 } as TurnState['held'];
    expect(holdRefusal(state, { action: 'retry', callIndex: 2 })).toBe('STALE_DECISION');
    expect(holdRefusal(state, { action: 'markDone' })).toBe('RESULT_REQUIRED');
    expect(holdRefusal(state, { action: 'retry', callIndex: 3 })).toBe('accepted');
    // Past the hold's expiresAt the turn answers without the tool, even if its timer is not handled yet.
    state.held = { callIndex: 3, expiresAt: '2030-01-01T00:00:00.000Z' } as TurnState['held'];
    expect(holdRefusal(state, { action: 'retry', callIndex: 3 }, EXPIRES_AT - 1)).toBe('accepted');
    expect(holdRefusal(state, { action: 'retry', callIndex: 3 }, EXPIRES_AT)).toBe('NOT_HELD');
    applyHoldDecision(state, { action: 'retry', callIndex: 3 });
    expect(() => applyHoldDecision(state, { action: 'retry' })).toThrow(ApplicationFailure);
  });

  it('a handler that finds the call decided fails the update, not the workflow task', () => {
    const state = new TurnState();
    parkedOn(state, 1);
    state.applyDecision({ decision: 'reject' });
    expect(() => state.applyDecision({ decision: 'approve' })).toThrow(ApplicationFailure);
    expect(state.decision).toMatchObject({ decision: 'REJECTED' });
  });
});
