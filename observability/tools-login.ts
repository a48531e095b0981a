import { Client } from 'pg';
import { errorMessage } from '../core/errors';
import { cutText } from '../core/text/cut-text';
import { connectionRefusalOf, sqlStateOf } from '../db/error-text';
import { sessionNaming } from '../db/session-settings';
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

const MAX_REASON = 300;

function decodedOrSame(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Why the login failed in PostgreSQL's (or the socket's) words, for the operator's log: the first line (never the
 * DETAIL), its SQLSTATE or Node's code, and never the login's password, should the text quote it.
 */
function failureReason(err: unknown, url: string): string {
  let text = (errorMessage(err).split('\n')[0] ?? '').trim();
  const password = URL.canParse(url) ? new URL(url).password : '';
  for (const secret of password === '' ? [] : [password, decodedOrSame(password)]) {
    text = text.split(secret).join('***');
  }
  if (text.length > MAX_REASON) text = `${cutText(text, MAX_REASON)}…`;
  const sqlState = sqlStateOf(err);
  const code = (err as { code?: unknown } | null)?.code;
  if (sqlState !== null) return `${text} (SQLSTATE ${sqlState})`;
  return typeof code === 'string' && !text.includes(code) ? `${text} (${code})` : text;
}

/**
 * Logs in as the SQL tools do, on a connection of its own: a pooled one logged in earlier would still answer after
 * the role's password changed, while every new one the tools open fails.
 */
async function logIn(url: string): Promise<void> {
  const client = new Client({
    connectionString: url,
    connectionTimeoutMillis: CHECK_DEADLINE_MS,
    ...sessionNaming('convengine-tools'),
  });
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
      // 42501: the role lacks CONNECT on the database (a DBA revoked it from PUBLIC, migrate could not grant it).
      const fix =
        sqlStateOf(err) === '42501' ? ': grant the role CONNECT on it (convengine migrate does, as its owner)' : '';
      const reason = failureReason(err, login.url);
      const message = `the SQL tools cannot reach their database (${reason})${fix}: SQL tool calls fail until they can`;
      return { reason: 'unreachable', log: { fields: { err }, message } };
    }
    const fix = fixOf(login, refusal);
    const message = `the SQL tools' login failed, so every SQL tool call fails: ${refusalMessage(refusal, login.url, fix)}`;
    return { reason: refusalReason(refusal, fix), log: { fields: { sqlState: sqlStateOf(err) }, message } };
  }
}
