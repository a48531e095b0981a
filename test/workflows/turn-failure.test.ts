import { ActivityFailure, ApplicationFailure, RetryState, TimeoutFailure, TimeoutType } from '@temporalio/common';
import { turnFailureFacts } from '../../workflows/turn-failure';

const inActivity = (activityType: string, cause: Error) =>
  new ActivityFailure('Activity task failed', activityType, '7', RetryState.MAXIMUM_ATTEMPTS_REACHED, 'w', cause);

describe('turnFailureFacts: the failure a turn ended on, as the API reads it', () => {
  it('a last attempt cut off by its timeout is TIMEOUT at its step, recoverable, with no attempt', () => {
    const timedOut = inActivity('RegularSteps', new TimeoutFailure(undefined, undefined, TimeoutType.START_TO_CLOSE));
    expect(turnFailureFacts(timedOut)).toEqual({
      step: 'RegularSteps',
      type: 'TIMEOUT',
      message: 'timed out',
      nonRetryable: false,
      attempt: null,
    });
  });

  it("a step's own failure keeps its type, retryability and reported attempt", () => {
    const own = ApplicationFailure.create({
      type: 'LLM_CALL_FAILED',
      message: 'overloaded',
      details: [{ failedAttempt: 6 }],
    });
    expect(turnFailureFacts(inActivity('IntentResolution', own))).toEqual({
      step: 'IntentResolution',
      type: 'LLM_CALL_FAILED',
      message: 'overloaded',
      nonRetryable: false,
      attempt: 6,
    });
  });

  it("an operator's fail, thrown by the workflow itself, is at McpToolHold and final", () => {
    const failed = ApplicationFailure.create({ type: 'TOOL_HOLD_FAILED', message: 'down', nonRetryable: true });
    expect(turnFailureFacts(failed)).toMatchObject({
      step: 'McpToolHold',
      type: 'TOOL_HOLD_FAILED',
      nonRetryable: true,
    });
  });

  it("a step of a step run is named by the run's failure, not the run", () => {
    const own = ApplicationFailure.create({
      type: 'RESPONSE_MAPPING_NOT_FOUND',
      message: 'no response',
      nonRetryable: true,
      details: [{ failedAttempt: 1 }, { ran: [], failedStep: { name: 'ResponseResolution', callKey: '20-x' } }],
    });
    expect(turnFailureFacts(inActivity('RegularSteps', own))).toMatchObject({ step: 'ResponseResolution', attempt: 1 });
  });
});
