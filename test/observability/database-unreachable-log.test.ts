import type { Connection } from '@temporalio/client';
import { openDatabase } from '../../db/pool';
import { createLogger } from '../../observability/logger';
import { startPrerequisiteMonitor } from '../../observability/prerequisites';
import { captureLog } from '../support/log-capture';
import { startRefusingPooler } from '../support/refusing-pooler';

/** A Temporal connection whose namespace has the turn search attributes: only the database is wrong. */
const temporal = {
  withDeadline: <T>(_deadline: number, call: () => Promise<T>) => call(),
  operatorService: { listSearchAttributes: async () => ({ customAttributes: {} }) },
} as unknown as Pick<Connection, 'operatorService' | 'withDeadline'>;

describe('a database a pooler refuses sessions of', () => {
  it("is logged with the pooler's own words, not only as unreachable", async () => {
    const pooler = await startRefusingPooler('unsupported startup parameter: lock_timeout');
    const handle = openDatabase(pooler.url, { max: 1 });
    const log = captureLog();
    const logger = createLogger({ level: 'info', format: 'json', name: 'worker', destination: log.stream });
    try {
      const monitor = await startPrerequisiteMonitor({ db: handle.db, temporal, namespace: 'default', logger });
      expect((await monitor.status()).database).toBe('unreachable');
      const logged = log.lines().find((line) => line['dependency'] === 'database');
      expect(logged?.['msg']).toBe(
        'the database is unreachable: check DATABASE_URL and that PostgreSQL is up; the server (or a pooler in ' +
          'front of it) said: unsupported startup parameter: lock_timeout (SQLSTATE 08P01)'
      );
    } finally {
      await handle.close();
      await pooler.close();
    }
  });
});
