import type { PoolClient } from 'pg';
import { TIME_FORMAT_SESSION } from './pool';

/** Server-side limits on the role: a backstop; the executor sets tighter ones per transaction. */
const ROLE_SETTINGS: Readonly<Record<string, string>> = {
  search_path: 'business',
  // The time formats the executor also pins per query, so tool SQL reads the same under the database's defaults.
  ...TIME_FORMAT_SESSION,
  default_transaction_read_only: 'on',
  statement_timeout: '60s',
  lock_timeout: '5s',
  idle_in_transaction_session_timeout: '60s',
};
/** Only a superuser may set these on a role. */
const SUPERUSER_ROLE_SETTINGS: Readonly<Record<string, string>> = { temp_file_limit: '256MB' };

/** Sets the role's settings (superuser-only ones when `superuser`). */
export async function applyRoleSettings(client: PoolClient, role: string, superuser: boolean): Promise<string[]> {
  const settings = { ...ROLE_SETTINGS, ...(superuser ? SUPERUSER_ROLE_SETTINGS : {}) };
  for (const [name, value] of Object.entries(settings)) {
    await client.query(`ALTER ROLE ${client.escapeIdentifier(role)} SET ${name} = ${client.escapeLiteral(value)}`);
  }
  return [];
}
