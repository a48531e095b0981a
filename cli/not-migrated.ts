import type { Pool } from 'pg';
import { notMigratedMessage, schemaState } from '../db/migrate';

/**
 * Why a command failed on the database when it is because the database lacks migrations ("relation \"ce_rule\"
 * does not exist" says neither that nor what to do); null when it has them all, or when that cannot be read
 * (the command's own error then says why). Asked only after a failure: a working command pays nothing.
 */
export async function notMigratedReason(pool: Pick<Pool, 'query'>): Promise<string | null> {
  try {
    const message = notMigratedMessage(await schemaState(pool));
    return message === null ? null : `the database is not migrated: ${message}`;
  } catch {
    return null;
  }
}
