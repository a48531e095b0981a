import { errorMessage } from '../core/errors';

/**
 * The text of a database error as it may leave the process: shown by a SQL tool to the planner and
 * the API, or carried by a failed step into logs and Temporal's history. PostgreSQL's
 * primary message names the problem ("column \"x\" does not exist", "invalid input syntax for type
 * integer: \"abc\"") and is what lets a model repair its SQL; what it quotes comes from the query's
 * own scope (the tools role reads nothing else). Still, a quoted value is cut short (to `maxQuoted`
 * characters; 0 where nothing quoted may show, as it may be the user's text), DETAIL,
 * HINT, CONTEXT and the query text are never included, and connection or authentication failures
 * (hosts, role names) become one generic sentence.
 */
const MAX_QUOTED = 40;
const MAX_MESSAGE = 300;

export function scrubDatabaseMessage(err: unknown, connectionFailure: string, maxQuoted = MAX_QUOTED): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code) || /^(08|28|3D|53|57P)/.test(code)) {
    return connectionFailure;
  }
  const first = (errorMessage(err).split('\n')[0] ?? '').trim();
  const quotedCut = first.replace(/"([^"]*)"/g, (_m, inner: string) =>
    inner.length > maxQuoted ? `"${inner.slice(0, maxQuoted)}…"` : `"${inner}"`
  );
  const text = quotedCut.length > MAX_MESSAGE ? `${quotedCut.slice(0, MAX_MESSAGE)}…` : quotedCut;
  return `${text} (SQLSTATE ${code})`;
}
