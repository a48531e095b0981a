import { ApplicationFailure } from '@temporalio/common';
import { DatabaseError } from 'pg';
import { fromDatabaseError, isRetryableFailure, toActivityFailure } from '../../../activities/runtime/failure';
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
