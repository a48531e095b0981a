import { ApplicationFailure } from '@temporalio/workflow';
import type { ApprovalDecisionInput } from '../../workflows/messages';
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

const refusal = (state: TurnState, input: ApprovalDecisionInput): string => {
  try {
    state.validateDecision(input);
    return 'accepted';
  } catch (err) {
    return (err as Error).message.split(':')[0] ?? '';
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

  it('a turn that never waited for an approval is NOT_AWAITING_APPROVAL', () => {
    const state = new TurnState();
    expect(refusal(state, { decision: 'approve', callIndex: 1 })).toBe('NOT_AWAITING_APPROVAL');
    expect(refusal(state, { decision: 'approve' })).toBe('NOT_AWAITING_APPROVAL');
  });

  it('a handler that finds the call decided fails the update, not the workflow task', () => {
    const state = new TurnState();
    parkedOn(state, 1);
    state.applyDecision({ decision: 'reject' });
    expect(() => state.applyDecision({ decision: 'approve' })).toThrow(ApplicationFailure);
    expect(state.decision).toMatchObject({ decision: 'REJECTED' });
  });
});
