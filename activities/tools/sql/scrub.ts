import { errorMessage } from '../../../core/errors';

/**
 * The text of a database error as a tool may show it to the planner and the API. PostgreSQL's
 * primary message names the problem ("column \"x\" does not exist", "invalid input syntax for type
 * integer: \"abc\"") and is what lets a model repair its SQL; what it quotes comes from the query's
 * own scope (the tools role reads nothing else). Still, a quoted value is cut short, DETAIL,
 * HINT, CONTEXT and the query text are never included, and connection or authentication failures
 * (hosts, role names) become one generic sentence.
 */
const MAX_QUOTED = 40;
const MAX_MESSAGE = 300;

export function scrubSqlErrorMessage(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code) || /^(08|28|3D|53|57P)/.test(code)) {
    return 'the database connection for SQL tools failed';
  }
  const first = (errorMessage(err).split('\n')[0] ?? '').trim();
  const quotedCut = first.replace(/"([^"]*)"/g, (_m, inner: string) =>
    inner.length > MAX_QUOTED ? `"${inner.slice(0, MAX_QUOTED)}…"` : `"${inner}"`
  );
  const text = quotedCut.length > MAX_MESSAGE ? `${quotedCut.slice(0, MAX_MESSAGE)}…` : quotedCut;
  return `${text} (SQLSTATE ${code})`;
}
