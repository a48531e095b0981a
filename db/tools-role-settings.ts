import type { PoolClient } from 'pg';
import { TIME_FORMAT_SESSION } from './session-settings';

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

const TIME_UNITS = { us: 0.001, ms: 1, s: 1000, min: 60_000, h: 3_600_000, d: 86_400_000 };
/**
 * Limits where a smaller amount is stricter, in the unit a bare number means, and the amount that means "none". A
 * DBA who set a stricter one on the role (10s where migrate sets 60s) keeps it: migrate never loosens a limit.
 */
const LIMITS: Readonly<Record<string, { units: Readonly<Record<string, number>>; unlimited: number }>> = {
  statement_timeout: { units: TIME_UNITS, unlimited: 0 },
  lock_timeout: { units: TIME_UNITS, unlimited: 0 },
  idle_in_transaction_session_timeout: { units: TIME_UNITS, unlimited: 0 },
  temp_file_limit: { units: { B: 1 / 1024, kB: 1, MB: 1024, GB: 1024 ** 2, TB: 1024 ** 3 }, unlimited: -1 },
};

/** The limit's amount in its base unit (unlimited as Infinity), or null for a value this cannot read. */
function amountOf(name: string, value: string): number | null {
  const limit = LIMITS[name];
  const match = /^\s*(-?\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(value);
  if (!limit || !match) return null;
  const number = Number(match[1]);
  if (number === limit.unlimited || number < 0) return Infinity;
  const factor = match[2] === '' ? 1 : limit.units[match[2] ?? ''];
  return factor === undefined ? null : number * factor;
}

/** Whether `value` limits more strictly than `than`; a value this cannot read counts as stricter (it is kept). */
function stricter(name: string, value: string, than: string): boolean {
  const amount = amountOf(name, value);
  const other = amountOf(name, than);
  return amount === null || (other !== null && amount < other);
}

/**
 * Role-wide settings of `role`, and (`inThisDatabase`) its settings in this database, which outrank them at login:
 * what a DBA may have set on it.
 */
async function settingsOf(client: PoolClient, role: string, inThisDatabase: boolean): Promise<Map<string, string>> {
  const { rows } = await client.query<{ setting: string }>(
    `SELECT unnest(s.setconfig) AS setting FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole
      WHERE r.rolname = $1
        AND (s.setdatabase = 0 OR ($2 AND s.setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())))
      ORDER BY s.setdatabase = 0 DESC`,
    [role, inThisDatabase]
  );
  const settings = new Map<string, string>();
  for (const { setting } of rows) {
    const at = setting.indexOf('=');
    settings.set(setting.slice(0, at), setting.slice(at + 1));
  }
  return settings;
}

/**
 * Sets the role's settings (superuser-only ones when `superuser`), each limit the strictest of migrate's, the one
 * already on the role and those on the roles it moves from (`previous`): a DBA's tighter statement_timeout survives
 * an upgrade and a move. Returns what it kept instead of migrate's value, for `migrate` to say.
 */
export async function applyRoleSettings(
  client: PoolClient,
  role: string,
  superuser: boolean,
  previous: readonly string[]
): Promise<string[]> {
  const existing = [await settingsOf(client, role, false)];
  for (const from of previous) existing.push(await settingsOf(client, from, true));
  const notes: string[] = [];
  const settings = { ...ROLE_SETTINGS, ...(superuser ? SUPERUSER_ROLE_SETTINGS : {}) };
  for (const [name, ours] of Object.entries(settings)) {
    let value = ours;
    for (const theirs of existing) {
      const set = theirs.get(name);
      if (LIMITS[name] && set !== undefined && stricter(name, set, value)) value = set;
    }
    if (value !== ours) notes.push(`kept ${name}=${value} on role ${role}: stricter than the ${ours} migrate sets`);
    await client.query(`ALTER ROLE ${client.escapeIdentifier(role)} SET ${name} = ${client.escapeLiteral(value)}`);
  }
  return notes;
}
