import { ApplicationFailure } from '@temporalio/common';
import { runInNewContext } from 'node:vm';
import { ERROR_RETRYABLE, EngineError, ErrorType, handOverReason, isProgrammingError } from '../../core/errors';
import { isRetryableFailure, toActivityFailure } from '../../activities/runtime/failure';

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

describe('retryability: ERROR_RETRYABLE is the one source (core/errors.ts)', () => {
  it("an EngineError takes its type's retryability unless the throw site says otherwise", () => {
    // Before, every EngineError without `retryable` was final, whatever the table said.
    expect(new EngineError(ErrorType.ToolExecutionFailed, 'handler threw').retryable).toBe(true);
    expect(new EngineError(ErrorType.LlmCallFailed, 'LLM down').retryable).toBe(true);
    expect(new EngineError(ErrorType.Internal, 'connection lost').retryable).toBe(true);
    expect(new EngineError(ErrorType.ToolHttpError, '404', { retryable: false }).retryable).toBe(false);
    expect(new EngineError(ErrorType.ConfigInvalid, 'bad row').retryable).toBe(false);
    expect(new EngineError('SOMETHING_UNLISTED', 'what').retryable).toBe(false);
  });

  it('a permanent type stays permanent, as the retry policies would refuse it anyway', () => {
    expect(new EngineError(ErrorType.StaleTurn, 'stale', { retryable: true }).retryable).toBe(false);
  });

  it('an invalid LLM answer is not retried: the same prompt gets the same kind of answer', () => {
    expect(ERROR_RETRYABLE[ErrorType.LlmOutputInvalid]).toBe(false);
    const failure = toActivityFailure(new EngineError(ErrorType.LlmOutputInvalid, 'not JSON'));
    expect(failure).toMatchObject({ type: 'LLM_OUTPUT_INVALID', nonRetryable: true });
  });

  it('the in-process runner retries exactly what Temporal would: flag first, then the type', () => {
    expect(isRetryableFailure(toActivityFailure(new EngineError(ErrorType.ToolTimeout, 'slow')))).toBe(true);
    expect(isRetryableFailure(ApplicationFailure.create({ type: 'CONFIG_INVALID', message: 'bad' }))).toBe(false);
    expect(isRetryableFailure(ApplicationFailure.create({ type: 'X', message: 'x', nonRetryable: true }))).toBe(false);
    expect(isRetryableFailure(new Error('connection lost'))).toBe(true);
  });

  it('a programming error is not retried: another attempt runs the same code on the same input', () => {
    for (const err of [new TypeError('oops'), new URIError('URI malformed'), new RangeError('too deep')]) {
      expect(isProgrammingError(err)).toBe(true);
      expect(isRetryableFailure(err)).toBe(false);
      const failure = toActivityFailure(err) as ApplicationFailure;
      expect(failure).toBeInstanceOf(ApplicationFailure);
      // Its class and message as they were, the error itself (its stack) as the cause.
      expect(failure).toMatchObject({ type: err.name, message: err.message, nonRetryable: true, cause: err });
      expect(isRetryableFailure(failure)).toBe(false);
    }
    // Told by name: Node's own errors come from another realm than a test's.
    expect(isProgrammingError(runInNewContext('new TypeError("other realm")'))).toBe(true);
    const other = new Error('connection lost');
    expect(isProgrammingError(other)).toBe(false);
    expect(toActivityFailure(other)).toBe(other);
    expect(isProgrammingError(new EngineError(ErrorType.Internal, 'typed'))).toBe(false);
  });
});
