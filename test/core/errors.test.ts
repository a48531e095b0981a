import { ApplicationFailure } from '@temporalio/common';
import { EngineError, ErrorType, handOverReason } from '../../core/errors';

describe('handOverReason (core/errors.ts)', () => {
  it('reads NEEDS_REGULAR_ACTIVITY from an EngineError and from the ApplicationFailure it becomes', () => {
    const refusal = new EngineError(ErrorType.NeedsRegularActivity, 'DialogueAct calls the LLM (DA)', {
      retryable: false,
    });
    expect(handOverReason(refusal)).toBe('DialogueAct calls the LLM (DA)');
    const failure = ApplicationFailure.create({ type: ErrorType.NeedsRegularActivity, message: 'Rules runs a task' });
    expect(handOverReason(failure)).toBe('Rules runs a task');
  });

  it('is null for every other failure', () => {
    expect(handOverReason(new EngineError(ErrorType.LlmCallFailed, 'LLM down'))).toBeNull();
    expect(handOverReason(ApplicationFailure.create({ type: 'TOOL_TIMEOUT', message: 'slow' }))).toBeNull();
    expect(handOverReason(new Error('NEEDS_REGULAR_ACTIVITY'))).toBeNull();
    expect(handOverReason({ type: ErrorType.NeedsRegularActivity, message: 'not an error' })).toBeNull();
    expect(handOverReason(undefined)).toBeNull();
  });
});
