import { ApplicationFailure } from '@temporalio/common';
import { DatabaseError } from 'pg';
import {
  fromDatabaseError,
  isRetryableFailure,
  toActivityFailure,
  withFailureRowsUnwritten,
} from '../../../activities/runtime/failure';
import { reportedAttempt, reportedRowsUnwritten } from '../../../core/turn/executor';
import { sqlFailure } from '../../../activities/tools/sql/executor';
import { EngineError, ErrorType } from '../../../core/errors';

describe('an engine error as the activity failure Temporal records', () => {
  it('carries only the scrubbed text: the driver error it wraps, with the raw value, stays out of history', () => {
    const value = 'my card is 4111111111111111, expiry 12/29, cvv 123 and pin 0000';
    const driver = Object.assign(new Error(`invalid input syntax for type integer: "${value}"`), { code: '22P02' });
    const failure = toActivityFailure(sqlFailure(driver, 'Tool postgres.query'));
    expect(failure).toBeInstanceOf(ApplicationFailure);
    const af = failure as ApplicationFailure;
    expect(af).toMatchObject({ type: 'TOOL_EXECUTION_FAILED', nonRetryable: true });
    expect(af.cause).toBeUndefined();
    // The SQL tool's own text keeps 40 characters of a quoted value (db/error-text.ts), so a model can repair its SQL.
    expect(af.message).toContain(
      'failed: invalid input syntax for type integer: "my card is 4111111111111111, expiry 12/2…"'
    );
    expect(JSON.stringify({ message: af.message, details: af.details })).not.toContain(value);
  });

  it("keeps the details a log line keeps: numbers, flags and named codes, not an upstream's body", () => {
    const err = new EngineError(ErrorType.ToolHttpError, 'HTTP_API call of partner.status failed with status 401', {
      details: {
        toolCode: 'partner.status',
        attempts: 2,
        status: 401,
        bodyPreview: '{"got":"Bearer sk-secret","ssn":"123-45-6789"}',
        echoed: { headers: { authorization: 'Bearer sk-secret' } },
      },
    });
    const af = toActivityFailure(err) as ApplicationFailure;
    expect(af.details).toEqual([{ toolCode: 'partner.status', attempts: 2, status: 401 }, { failedAttempt: 1 }]);
  });
});

describe('an attempt whose failure rows could not be stored (withFailureRowsUnwritten)', () => {
  it('says so beside its attempt, as the workflow reads it, its type, retryability and other details unchanged', () => {
    const failure = toActivityFailure(new EngineError(ErrorType.Internal, 'down', { retryable: true }));
    const marked = withFailureRowsUnwritten(failure);
    expect(marked).toMatchObject({ type: 'INTERNAL', message: 'down', nonRetryable: false });
    expect((marked as ApplicationFailure).details).toEqual([{ failedAttempt: 1, failureRowsUnwritten: true }]);
    expect([reportedRowsUnwritten(failure), reportedRowsUnwritten(marked)]).toEqual([false, true]);
    expect(reportedAttempt(marked)).toBe(1);
  });

  it("leaves a failure that reports no attempt as it is: the workflow writes that turn's row anyway", () => {
    const plain = new Error('boom');
    const noAttempt = ApplicationFailure.create({ type: 'X', message: 'x', details: [{ other: 1 }] });
    expect(withFailureRowsUnwritten(plain)).toBe(plain);
    expect(withFailureRowsUnwritten(noAttempt)).toBe(noAttempt);
  });
});

describe('a database error raised while persisting (fromDatabaseError)', () => {
  const driverError = (code: string) =>
    Object.assign(new DatabaseError('unsupported Unicode escape sequence', 0, 'error'), { code });

  it.each(['22P05', '22021', '54000'])(
    'is not retried when PostgreSQL refuses the data itself (SQLSTATE %s)',
    (code) => {
      const failure = toActivityFailure(fromDatabaseError(driverError(code))) as ApplicationFailure;
      expect(failure).toMatchObject({ type: 'INTERNAL', nonRetryable: true });
      expect(isRetryableFailure(fromDatabaseError(driverError(code)))).toBe(false);
    }
  );

  it.each(['40001', '57P01', '08006'])('is retried when another attempt may pass (SQLSTATE %s)', (code) => {
    expect(isRetryableFailure(fromDatabaseError(driverError(code)))).toBe(true);
  });
});
