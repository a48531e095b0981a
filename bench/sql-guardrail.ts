import { loadSqlParser } from '../activities/tools/sql/parser';
import { checkReadOnlySql, parseFunctionRef, type SqlGuardrailPolicy, type SqlParser } from '../core/sql';
import { REFUSED } from '../test/support/sql-guardrail-corpus';
import { LEGITIMATE } from '../test/support/sql-legitimate-corpus';

/**
 * Benchmark: how long the read-only SQL guardrail takes per statement (lex + PostgreSQL's parser in
 * WASM + allow-list walk of the tree), over the attack corpus and the legitimate analytics queries.
 * Run: `npx tsx bench/sql-guardrail.ts`.
 */
export interface SqlGuardrailBench {
  name: 'sql-guardrail';
  statements: number;
  checks: number;
  microsPerStatement: number;
  microsPerAllowed: number;
  microsPerRefused: number;
}

const POLICY: SqlGuardrailPolicy = {
  allowFunctions: [parseFunctionRef('fetch_inventory_status')],
  blockFunctions: [parseFunctionRef('pg_sleep')],
  blockKeywords: ['explain'],
};

function timePerCheck(parser: SqlParser, statements: readonly string[], rounds: number): number {
  const started = performance.now();
  for (let r = 0; r < rounds; r++) {
    for (const sql of statements) checkReadOnlySql(sql, parser, POLICY);
  }
  return ((performance.now() - started) * 1000) / (rounds * statements.length);
}

export async function benchSqlGuardrail(rounds = 200): Promise<SqlGuardrailBench> {
  const parser = await loadSqlParser();
  const allowed = LEGITIMATE.map((e) => e.sql);
  const refused = REFUSED.map((e) => e.sql);
  const all = [...allowed, ...refused];
  timePerCheck(parser, all, Math.max(1, Math.floor(rounds / 10)));
  return {
    name: 'sql-guardrail',
    statements: all.length,
    checks: all.length * rounds,
    microsPerStatement: timePerCheck(parser, all, rounds),
    microsPerAllowed: timePerCheck(parser, allowed, rounds),
    microsPerRefused: timePerCheck(parser, refused, rounds),
  };
}

async function main(): Promise<void> {
  const r = await benchSqlGuardrail();
  console.log(
    `sql-guardrail: ${r.microsPerStatement.toFixed(1)} µs/statement over ${r.statements} statements ` +
      `(${r.checks} checks; allowed ${r.microsPerAllowed.toFixed(1)} µs, refused ${r.microsPerRefused.toFixed(1)} µs)`
  );
}

if (require.main === module) void main();
