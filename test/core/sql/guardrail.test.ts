import { checkReadOnlySql, parseFunctionRef, sqlPolicyFromRows, type SqlGuardrailPolicy } from '../../../core/sql';
import type { SqlGuardrailRow } from '../../../core/config/types';
import { ALLOWED, REFUSED } from '../../support/sql-guardrail-corpus';

describe('read-only SQL guardrail, default policy', () => {
  it('has a corpus of at least 60 refusals and 20 allowed statements', () => {
    expect(REFUSED.length).toBeGreaterThanOrEqual(60);
    expect(ALLOWED.length).toBeGreaterThanOrEqual(20);
  });

  it.each(REFUSED.map((e) => [e.sql, e.reason ?? '']))('refuses %j', (sql, reason) => {
    const verdict = checkReadOnlySql(sql);
    expect(verdict.allowed).toBe(false);
    expect(verdict.code).not.toBe('ALLOWED');
    expect(verdict.reason.toLowerCase()).toContain(reason.toLowerCase());
  });

  it.each(ALLOWED.map((e) => [e.sql]))('allows %j', (sql) => {
    const verdict = checkReadOnlySql(sql);
    expect(verdict).toMatchObject({ allowed: true, code: 'ALLOWED' });
    expect(verdict.reason).toMatch(/^Read-only (WITH … )?SELECT query\.$/);
  });
});

function row(id: number, ruleType: string, matchValue: string, enabled = true): SqlGuardrailRow {
  return { guardrailId: id, ruleType, matchValue, description: null, enabled };
}

describe('read-only SQL guardrail, ce_mcp_sql_guardrail rows', () => {
  const policy = sqlPolicyFromRows([
    row(1, 'BLOCK_FUNCTION', 'pg_sleep'),
    row(2, 'allow_function', 'fetch_inventory_status'),
    row(3, 'BLOCK_KEYWORD', 'explain'),
    row(4, 'ALLOW_FUNCTION', 'business.stock_level'),
    row(5, 'BLOCK_FUNCTION', 'lower', false),
    row(6, 'BLOCK_FUNCTION', 'pg_catalog.upper'),
  ]);

  it('reports a blocked function by name', () => {
    expect(checkReadOnlySql('select pg_sleep(1)', policy)).toMatchObject({
      allowed: false,
      code: 'BLOCKED_FUNCTION',
      reason: 'SQL uses blocked function: PG_SLEEP.',
    });
  });

  it('extends the allow-list but keeps denying everything else', () => {
    expect(checkReadOnlySql('select fetch_inventory_status(1)', policy).allowed).toBe(true);
    expect(checkReadOnlySql('select count(*) from t', policy).allowed).toBe(true);
    expect(checkReadOnlySql("select md5('a')", policy)).toMatchObject({
      allowed: false,
      reason: 'SQL uses function not present in the allowlist: MD5.',
    });
  });

  it('matches rule types and values case-insensitively', () => {
    expect(checkReadOnlySql('select FETCH_INVENTORY_STATUS(2)', policy).allowed).toBe(true);
    expect(checkReadOnlySql('SELECT 1 AS EXPLAIN', policy)).toMatchObject({ allowed: false, code: 'BLOCKED_KEYWORD' });
  });

  it('blocks a keyword only outside literals and comments', () => {
    expect(checkReadOnlySql('select 1 as explain', policy).reason).toBe('SQL contains blocked keyword: EXPLAIN.');
    expect(checkReadOnlySql("select 'explain' -- explain", policy).allowed).toBe(true);
  });

  it('honours schema qualification: a qualified allow row allows only that schema', () => {
    expect(checkReadOnlySql('select business.stock_level(1)', policy).allowed).toBe(true);
    expect(checkReadOnlySql('select stock_level(1)', policy).allowed).toBe(false);
    expect(checkReadOnlySql('select other.stock_level(1)', policy).reason).toContain('OTHER.STOCK_LEVEL');
    expect(checkReadOnlySql('select public.fetch_inventory_status(1)', policy).allowed).toBe(false);
  });

  it('lets an unqualified block row block the name in every schema, and pg_catalog blocks cover unqualified calls', () => {
    expect(checkReadOnlySql('select public.pg_sleep(1)', policy).code).toBe('BLOCKED_FUNCTION');
    expect(checkReadOnlySql("select upper('a')", policy).code).toBe('BLOCKED_FUNCTION');
    expect(checkReadOnlySql("select pg_catalog.upper('a')", policy).code).toBe('BLOCKED_FUNCTION');
  });

  it('ignores disabled rows', () => {
    expect(checkReadOnlySql('select lower(a) from t', policy).allowed).toBe(true);
  });

  it('lets a block row take a built-in function away', () => {
    const strict: SqlGuardrailPolicy = {
      allowFunctions: [],
      blockFunctions: [parseFunctionRef('now')],
      blockKeywords: [],
    };
    expect(checkReadOnlySql('select now()', strict).code).toBe('BLOCKED_FUNCTION');
  });
});
