import { Client } from 'pg';
import { connectionRefusalOf, sqlStateOf } from '../db/error-text';
import type { ToolsLogin } from '../db/tools-role';
import { refusalMessage, refusalReason } from './database-refusal';
import { CHECK_DATABASE_URL, CHECK_DEADLINE_MS, databaseCheck } from './dependency-checks';

/** The tools login's answer: `ok`, or the /readyz reason and the log line that names the fix. */
export interface ToolsLoginOutcome {
  reason: string;
  log?: { fields: object; message: string };
}

/**
 * What to fix when the tools login is refused: the variable the operator set, or, for the derived login, the
 * `migrate` that sets the role's password (it needs a superuser or CREATEROLE) or a login of the operator's own.
 */
function fixOf(login: ToolsLogin, refusal: 'DATABASE_MISSING' | 'LOGIN_REFUSED'): string {
  if (login.configured) return 'check TOOLS_DATABASE_URL';
  if (refusal === 'DATABASE_MISSING') return CHECK_DATABASE_URL;
  return 'run convengine migrate as a superuser, or set TOOLS_DATABASE_URL';
}

/**
 * Logs in as the SQL tools do, on a connection of its own: a pooled one logged in earlier would still answer after
 * the role's password changed, while every new one the tools open fails.
 */
async function logIn(url: string): Promise<void> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: CHECK_DEADLINE_MS });
  client.on('error', () => undefined);
  await client.connect();
  await client.end();
}

/**
 * Whether the SQL tools can log in (TOOLS_DATABASE_URL or the derived login, db/tools-role.ts), within the check
 * deadline. A refused one names the fix: without it every SQL tool call fails ("Tool execution failed") while the
 * engine's own database and Temporal are fine.
 */
export async function checkToolsLogin(login: ToolsLogin): Promise<ToolsLoginOutcome> {
  try {
    await databaseCheck(logIn(login.url));
    return { reason: 'ok' };
  } catch (err) {
    const refusal = connectionRefusalOf(err);
    if (refusal === null) {
      const message = `the SQL tools cannot reach their database: SQL tool calls fail until they can`;
      return { reason: 'unreachable', log: { fields: { err }, message } };
    }
    const fix = fixOf(login, refusal);
    const message = `the SQL tools' login failed, so every SQL tool call fails: ${refusalMessage(refusal, login.url, fix)}`;
    return { reason: refusalReason(refusal, fix), log: { fields: { sqlState: sqlStateOf(err) }, message } };
  }
}
