import { DrizzleQueryError } from 'drizzle-orm';
import { isDatabaseUnavailable } from '../../db/connection-loss';

const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });

/** What a step waits out (activities/runtime/database-outage.ts): the database not there, whatever was asked. */
describe('isDatabaseUnavailable', () => {
  it('a database closed to connections, out of slots, unreachable or lost; also wrapped as drizzle wraps it', () => {
    const closed = pgError('55000', 'database "ce" is not currently accepting connections');
    expect(isDatabaseUnavailable(closed)).toBe(true);
    expect(isDatabaseUnavailable(new DrizzleQueryError('SELECT 1', [], closed))).toBe(true);
    expect(isDatabaseUnavailable(pgError('53300', 'sorry, too many clients already'))).toBe(true);
    expect(isDatabaseUnavailable(pgError('57P03', 'the database system is starting up'))).toBe(true);
    expect(isDatabaseUnavailable(pgError('57P01', 'terminating connection due to administrator command'))).toBe(true);
    expect(isDatabaseUnavailable(pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
  });

  it('not a statement the database refused: another 55000, a constraint, a syntax error', () => {
    expect(isDatabaseUnavailable(pgError('55000', 'currval of sequence "s" is not yet defined in this session'))).toBe(
      false
    );
    expect(isDatabaseUnavailable(pgError('23505', 'duplicate key value violates unique constraint'))).toBe(false);
    expect(isDatabaseUnavailable(pgError('42601', 'syntax error at or near "SELEC"'))).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
  });
});
