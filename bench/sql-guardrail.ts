import { checkReadOnlySql, parseFunctionRef, type SqlGuardrailPolicy } from '../core/sql';
import { ALLOWED, REFUSED } from '../test/support/sql-guardrail-corpus';

/**
 * Benchmark: how long the read-only SQL guardrail takes per statement (lex + parse + AST walk +
 * function policy), over the guardrail test corpus (allowed and refused statements alike).
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

function timePerCheck(statements: readonly string[], rounds: number): number {
  const started = performance.now();
  for (let r = 0; r < rounds; r++) {
    for (const sql of statements) checkReadOnlySql(sql, POLICY);
  }
  return ((performance.now() - started) * 1000) / (rounds * statements.length);
}

export function benchSqlGuardrail(rounds = 200): SqlGuardrailBench {
  const allowed = ALLOWED.map((e) => e.sql);
  const refused = REFUSED.map((e) => e.sql);
  const all = [...allowed, ...refused];
  timePerCheck(all, Math.max(1, Math.floor(rounds / 10)));
  return {
    name: 'sql-guardrail',
    statements: all.length,
    checks: all.length * rounds,
    microsPerStatement: timePerCheck(all, rounds),
    microsPerAllowed: timePerCheck(allowed, rounds),
    microsPerRefused: timePerCheck(refused, rounds),
  };
}

if (require.main === module) {
  const r = benchSqlGuardrail();
  console.log(
    `sql-guardrail: ${r.microsPerStatement.toFixed(1)} µs/statement over ${r.statements} statements ` +
      `(${r.checks} checks; allowed ${r.microsPerAllowed.toFixed(1)} µs, refused ${r.microsPerRefused.toFixed(1)} µs)`
  );
}
