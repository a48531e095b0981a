import type { JsonObject } from '../../../core/json';
import { findEpochConversions, rewriteEpochConversions, rewriteLeapDayLiterals } from '../../../core/sql/rewrite';
import { BUSINESS_SCHEMA, type ReadOnlySqlTarget } from './executor';

/**
 * The postgres.query interceptor chain (§7.2): an ordered list of rewriters that may fix SQL
 * before the guardrail sees it. Consumers register their own ahead of the default one; an
 * interceptor can return null (no change). The guardrail always checks the final SQL, so an
 * interceptor cannot be used to sneak a write through.
 */
export interface InterceptorContext {
  toolCode: string;
  args: JsonObject;
  conversationId: string;
}

export interface PostgresQueryInterceptor {
  name: string;
  supports(ctx: InterceptorContext): boolean;
  intercept(sql: string, ctx: InterceptorContext): Promise<string | null>;
}

export interface InterceptedSql {
  sql: string;
  /** Names of the interceptors that changed the SQL, in order. */
  applied: string[];
}

export async function runInterceptors(
  chain: readonly PostgresQueryInterceptor[],
  sql: string,
  ctx: InterceptorContext
): Promise<InterceptedSql> {
  let current = sql;
  const applied: string[] = [];
  for (const interceptor of chain) {
    if (!interceptor.supports(ctx)) continue;
    const next = await interceptor.intercept(current, ctx);
    if (next !== null && next.trim() !== '' && next !== current) {
      current = next;
      applied.push(interceptor.name);
    }
  }
  return { sql: current, applied };
}

/** Looks up whether `table.column` is a timestamp or date column, via information_schema. */
export type TemporalColumnLookup = (tables: readonly string[]) => Promise<Set<string>>;

export function informationSchemaLookup(target: ReadOnlySqlTarget): TemporalColumnLookup {
  return async (tables) => {
    if (tables.length === 0) return new Set();
    const refs = tables.map((t) => (t.includes('.') ? t : `${BUSINESS_SCHEMA}.${t}`));
    const result = await target.pool.query<{ ref: string; column_name: string }>(
      `SELECT table_schema || '.' || table_name AS ref, column_name FROM information_schema.columns
        WHERE (table_schema || '.' || table_name) = ANY($1::text[])
          AND (data_type LIKE 'timestamp%' OR data_type = 'date')`,
      [refs]
    );
    return new Set(result.rows.map((r) => `${r.ref}.${r.column_name}`.toLowerCase()));
  };
}

/** The framework default (lowest precedence): leap-day literals, then epoch conversions on temporal columns. */
export function defaultPostgresQueryInterceptor(lookup: TemporalColumnLookup): PostgresQueryInterceptor {
  return {
    name: 'DefaultPostgresQueryInterceptor',
    supports: () => true,
    async intercept(sql) {
      const leapFixed = rewriteLeapDayLiterals(sql);
      const conversions = findEpochConversions(leapFixed);
      if (conversions.length === 0) return leapFixed;
      const temporal = await lookup([...new Set(conversions.map((c) => c.table))]);
      const qualified = (table: string): string => (table.includes('.') ? table : `${BUSINESS_SCHEMA}.${table}`);
      return rewriteEpochConversions(leapFixed, (table, column) => temporal.has(`${qualified(table)}.${column}`));
    },
  };
}
