import { DrizzleQueryError } from 'drizzle-orm';
import { isDatabaseUnreachable } from '../../db/connection-loss';

const pgError = (code: string, message: string, severity = 'ERROR') =>
  Object.assign(new Error(message), { code, severity });

describe('isDatabaseUnreachable, which a step waits out as it is (activities/runtime/database-outage.ts)', () => {
  it('a database closed to connections, out of slots, unreachable or lost; also wrapped as drizzle wraps it', () => {
    const closed = pgError('55000', 'database "ce" is not currently accepting connections', 'FATAL');
    expect(isDatabaseUnreachable(closed)).toBe(true);
    expect(isDatabaseUnreachable(new DrizzleQueryError('SELECT 1', [], closed))).toBe(true);
    expect(isDatabaseUnreachable(pgError('53300', 'sorry, too many clients already'))).toBe(true);
    expect(isDatabaseUnreachable(pgError('57P03', 'the database system is starting up'))).toBe(true);
    expect(isDatabaseUnreachable(pgError('57P01', 'terminating connection due to administrator command'))).toBe(true);
    expect(isDatabaseUnreachable(pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'))).toBe(true);
    expect(isDatabaseUnreachable(new Error('timeout exceeded when trying to connect'))).toBe(true);
  });

  it('not a statement the database refused: another 55000, a constraint, a syntax error', () => {
    expect(isDatabaseUnreachable(pgError('55000', 'currval of sequence "s" is not yet defined in this session'))).toBe(
      false
    );
    expect(isDatabaseUnreachable(pgError('23505', 'duplicate key value violates unique constraint'))).toBe(false);
    expect(isDatabaseUnreachable(pgError('42601', 'syntax error at or near "SELEC"'))).toBe(false);
    expect(isDatabaseUnreachable(null)).toBe(false);
  });
});
