import { tokenizeSql } from './lexer';

/**
 * SQL tools are written with named parameters (`:connection_id`); PostgreSQL's extended protocol
 * takes positional ones (`$1`). Converting in one place (outside literals, comments and `::`
 * casts) lets the guardrail parse the statement and the executor bind values, never splice them.
 */
export interface PositionalSql {
  sql: string;
  /** Parameter names in `$n` order (a name used twice maps to one position). */
  names: string[];
  /** Highest `$n` already present in the input (positional parameters are kept as they are). */
  positionalCount: number;
}

export class SqlParamError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SqlParamError';
  }
}

export function toPositionalParams(sql: string): PositionalSql {
  const names: string[] = [];
  let positionalCount = 0;
  let out = '';
  for (const token of tokenizeSql(sql)) {
    if (token.kind === 'positional_param') {
      positionalCount = Math.max(positionalCount, Number(token.text.slice(1)));
      out += token.text;
    } else if (token.kind === 'named_param') {
      const name = token.text.slice(1);
      let index = names.indexOf(name);
      if (index < 0) index = names.push(name) - 1;
      out += `$${index + 1}`;
    } else out += token.text;
  }
  if (names.length > 0 && positionalCount > 0) {
    throw new SqlParamError('SQL mixes named (:name) and positional ($n) parameters; use one style.');
  }
  return { sql: out, names, positionalCount };
}

export interface BoundSql {
  text: string;
  values: unknown[];
  names: string[];
}

/**
 * Binds named values for execution. Every `:name` in the SQL must have a value (null counts);
 * extra values are ignored, because planners often pass more args than a template uses.
 */
export function bindNamedParams(sql: string, params: Record<string, unknown>): BoundSql {
  const positional = toPositionalParams(sql);
  if (positional.positionalCount > 0) {
    throw new SqlParamError('SQL tools must use named parameters (:name), not positional ($n) ones.');
  }
  const missing = positional.names.filter((name) => !(name in params) || params[name] === undefined);
  if (missing.length > 0) {
    throw new SqlParamError(`Missing value for SQL parameter(s): ${missing.map((n) => `:${n}`).join(', ')}`);
  }
  return { text: positional.sql, values: positional.names.map((name) => params[name]), names: positional.names };
}
