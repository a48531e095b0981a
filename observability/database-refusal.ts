import type { ConnectionRefusal } from '../db/error-text';

/**
 * What readiness and the log say of a login the server refused (db/error-text.ts, connectionRefusalOf), with the fix.
 * The /readyz reason is public: it names the variable to check, never a role or database of it. The log line is the
 * operator's: it names the role or database from the connection string (never its password), as `migrate` does.
 */
export function refusalReason(refusal: ConnectionRefusal, fix: string): string {
  return `${refusal === 'DATABASE_MISSING' ? 'database missing' : 'login refused'}: ${fix}`;
}

/** The log line's text: `database "x" does not exist` or `authentication failed for role "y" (…)`, then the fix. */
export function refusalMessage(refusal: ConnectionRefusal, connectionString: string | null, fix: string): string {
  const url = connectionString !== null && URL.canParse(connectionString) ? new URL(connectionString) : null;
  const role = url && url.username !== '' ? `"${decodeURIComponent(url.username)}"` : null;
  if (refusal === 'DATABASE_MISSING') {
    // PostgreSQL's default database is the role's name.
    const name = url && url.pathname.length > 1 ? `"${decodeURIComponent(url.pathname.slice(1))}"` : role;
    return `database ${name ?? 'of the connection string'} does not exist: ${fix}`;
  }
  const who = role === null ? 'the connection string' : `role ${role}`;
  return `authentication failed for ${who} (a wrong password, no such role, or no pg_hba.conf entry for this host): ${fix}`;
}
