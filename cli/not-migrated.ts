import type { Pool } from 'pg';
import { isDatabaseUnreachable } from '../db/connection-loss';
import { notMigratedMessage, schemaState } from '../db/migrate';

/**
 * Why a command failed on the database when it is because the database lacks migrations ("relation \"ce_rule\"
 * does not exist" says neither that nor what to do); null when it has them all, or when that cannot be read
 * (the command's own error then says why). Asked only after a failure: a working command pays nothing. Not asked
 * after `failure` said the database cannot be reached: asking would only wait for another connect timeout.
 */
export async function notMigratedReason(pool: Pick<Pool, 'query'>, failure: unknown): Promise<string | null> {
  if (isDatabaseUnreachable(failure)) return null;
  try {
    const message = notMigratedMessage(await schemaState(pool));
    return message === null ? null : `the database is not migrated: ${message}`;
  } catch {
    return null;
  }
}
