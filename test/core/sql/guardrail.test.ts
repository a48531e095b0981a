import fc from 'fast-check';
import { loadSqlParser } from '../../../activities/tools/sql/parser';
import type { SqlGuardrailRow } from '../../../core/config/tool-rows';
import {
  checkReadOnlySql,
  parseFunctionRef,
  sqlPolicyFromRows,
  type SqlCheckOptions,
  type SqlGuardrailPolicy,
  type SqlParser,
} from '../../../core/sql';
import { ATTACK_CLASSES, REFUSED } from '../../support/sql-guardrail-corpus';
import { LEGITIMATE } from '../../support/sql-legitimate-corpus';

let parser: SqlParser;
beforeAll(async () => {
  parser = await loadSqlParser();
});

const check = (sql: string, policy?: SqlGuardrailPolicy, options?: SqlCheckOptions) =>
  checkReadOnlySql(sql, parser, policy, options);

describe('read-only SQL guardrail: the attack corpus', () => {
  it('has at least 150 attacks in every class the issue names, and at least 60 legitimate queries', () => {
    expect(REFUSED.length).toBeGreaterThanOrEqual(150);
    expect(Object.values(ATTACK_CLASSES).every((entries) => entries.length >= 5)).toBe(true);
    expect(LEGITIMATE.length).toBeGreaterThanOrEqual(60);
  });

  describe.each(Object.entries(ATTACK_CLASSES))('%s', (_name, entries) => {
    it.each(entries.map((e) => [e.sql, e.reason]))('refuses %j', (sql, reason) => {
      const verdict = check(sql);
      expect(verdict.allowed).toBe(false);
      expect(verdict.code).not.toBe('ALLOWED');
      expect(verdict.reason.toLowerCase()).toContain(reason.toLowerCase());
    });
  });
});

describe('read-only SQL guardrail: legitimate analytics', () => {
  it.each(LEGITIMATE.map((e) => [e.sql]))('allows %j', (sql) => {
    const verdict = check(sql);
    expect(verdict).toMatchObject({ allowed: true, code: 'ALLOWED' });
    expect(verdict.reason).toMatch(/^Read-only (WITH … )?SELECT query\.$/);
  });

  it('allows comments and literals that look like writes', () => {
    for (const sql of [
      'select 1; -- trailing comment',
      '/* drop table t */ select 1',
      "select 'delete from t; drop table t'",
      'select "delete" from zp_disco_request',
    ]) {
      expect(check(sql).allowed).toBe(true);
    }
  });
});

describe('read-only SQL guardrail: schemas', () => {
  it('reads only the configured business schemas', () => {
    const options = { schemas: ['sales', 'Business'] };
    expect(check('select * from sales.orders', undefined, options).allowed).toBe(true);
    expect(check('select * from business.orders', undefined, options).allowed).toBe(true);
    expect(check('select * from business.orders').allowed).toBe(true);
    expect(check('select * from sales.orders')).toMatchObject({ code: 'SCHEMA_NOT_ALLOWED' });
    expect(check('select * from sales.orders').reason).toContain('may read only business');
  });

  // PostgreSQL folds unquoted names to lower case and keeps quoted ones: "Business" is another schema.
  it.each([
    ['select * from "Business".t', 'SCHEMA_NOT_ALLOWED'],
    ['select "Business".t.c from business.t', 'SCHEMA_NOT_ALLOWED'],
    ['select 1::"Business".mytype', 'SCHEMA_NOT_ALLOWED'],
    ['select 1::"PG_CATALOG".int4', 'CATALOG_ACCESS'],
    ['select 1::"INT4"', 'TYPE_NOT_ALLOWED'],
    ['select 1 operator("PG_CATALOG".=) 1', 'OPERATOR_NOT_ALLOWED'],
    ['select "PG_CATALOG".lower(\'a\')', 'FUNCTION_NOT_ALLOWED'],
  ])('compares quoted names exactly: %s is refused (%s)', (sql, code) => {
    expect(check(sql)).toMatchObject({ allowed: false, code });
  });

  it.each([
    'select * from BUSINESS.t',
    'select * from "business".t',
    'select 1::INT4',
    'select 1 operator(PG_CATALOG.=) 1',
  ])('folds unquoted names as PostgreSQL does: %s is allowed', (sql) => {
    expect(check(sql)).toMatchObject({ allowed: true });
  });

  it('allows a spelling of the business schema exactly when PostgreSQL resolves it to business', () => {
    const spelling = fc
      .array(fc.boolean(), { minLength: 8, maxLength: 8 })
      .map((upper) => [...'business'].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''));
    fc.assert(
      fc.property(spelling, fc.boolean(), (name, quoted) => {
        const resolved = quoted ? name : name.toLowerCase();
        const verdict = check(`select * from ${quoted ? `"${name}"` : name}.orders`);
        expect(verdict.allowed).toBe(resolved === 'business');
      }),
      { numRuns: 200 }
    );
  });
});

function row(id: number, ruleType: string, matchValue: string, enabled = true): SqlGuardrailRow {
  return { guardrailId: id, ruleType, matchValue, description: null, enabled };
}

describe('read-only SQL guardrail: ce_mcp_sql_guardrail rows', () => {
  const policy = sqlPolicyFromRows([
    row(1, 'BLOCK_FUNCTION', 'length'),
    row(2, 'allow_function', 'fetch_inventory_status'),
    row(3, 'BLOCK_KEYWORD', 'explain'),
    row(4, 'ALLOW_FUNCTION', 'business.stock_level'),
    row(5, 'BLOCK_FUNCTION', 'lower', false),
    row(6, 'BLOCK_FUNCTION', 'pg_catalog.upper'),
    row(7, 'ALLOW_FUNCTION', 'pg_sleep'),
    row(8, 'ALLOW_FUNCTION', 'pg_catalog.pg_read_file'),
  ]);

  it('reports a blocked function by name', () => {
    expect(check("select length('x')", policy)).toMatchObject({
      allowed: false,
      code: 'BLOCKED_FUNCTION',
      reason: 'SQL uses blocked function: LENGTH.',
    });
  });

  it('widens the allow-list but keeps denying everything else', () => {
    expect(check('select fetch_inventory_status(1)', policy).allowed).toBe(true);
    expect(check('select count(*) from t', policy).allowed).toBe(true);
    expect(check("select md5('a')", policy)).toMatchObject({
      allowed: false,
      reason: 'SQL uses function not present in the allowlist: MD5.',
    });
  });

  it('never lets a row allow a function that reaches outside the query', () => {
    expect(check('select pg_sleep(1)', policy)).toMatchObject({ code: 'DENIED_FUNCTION' });
    expect(check('select pg_sleep(1)', policy).reason).toContain('PG_SLEEP, which sleeps');
    expect(check("select pg_catalog.pg_read_file('/etc/passwd')", policy).code).toBe('DENIED_FUNCTION');
  });

  it('matches rule types case-insensitively; unquoted names fold to lower case as PostgreSQL does', () => {
    expect(check('select FETCH_INVENTORY_STATUS(2)', policy).allowed).toBe(true);
    expect(check('select "FETCH_INVENTORY_STATUS"(2)', policy).allowed).toBe(false);
    expect(check('SELECT 1 AS EXPLAIN', policy)).toMatchObject({ allowed: false, code: 'BLOCKED_KEYWORD' });
  });

  it('blocks a keyword only outside literals and comments', () => {
    expect(check('select 1 as explain', policy).reason).toBe('SQL contains blocked keyword: EXPLAIN.');
    expect(check("select 'explain' -- explain", policy).allowed).toBe(true);
  });

  it('honours schema qualification: a qualified allow row allows only that schema', () => {
    expect(check('select business.stock_level(1)', policy).allowed).toBe(true);
    expect(check('select stock_level(1)', policy).allowed).toBe(false);
    expect(check('select other.stock_level(1)', policy).reason).toContain('OTHER.STOCK_LEVEL');
    expect(check('select public.fetch_inventory_status(1)', policy).allowed).toBe(false);
  });

  it('lets an unqualified block row block the name in every schema, and pg_catalog blocks cover unqualified calls', () => {
    expect(check("select public.length('x')", policy).code).toBe('BLOCKED_FUNCTION');
    expect(check("select upper('a')", policy).code).toBe('BLOCKED_FUNCTION');
    expect(check("select pg_catalog.upper('a')", policy).code).toBe('BLOCKED_FUNCTION');
  });

  it('ignores disabled rows', () => {
    expect(check('select lower(a) from t', policy).allowed).toBe(true);
  });

  it('lets a block row take a built-in function away', () => {
    const strict: SqlGuardrailPolicy = {
      allowFunctions: [],
      blockFunctions: [parseFunctionRef('now')],
      blockKeywords: [],
    };
    expect(check('select now()', strict).code).toBe('BLOCKED_FUNCTION');
  });

  it.each([
    ["select * from ts_stat('select to_tsvector(name) from pg_catalog.pg_user')", 'TS_STAT'],
    ["select ts_rewrite('a'::tsquery, 'select t, s from pg_catalog.pg_settings')", 'TS_REWRITE'],
    ["select * from crosstab('select 1, 2, 3') as t(a int, b int)", 'CROSSTAB'],
    ["select * from connectby('t', 'id', 'parent', '1', 0) as t(id text)", 'CONNECTBY'],
  ])('refuses %s, which runs SQL given as text, even when an ALLOW_FUNCTION row names it', (sql, name) => {
    const allowing: SqlGuardrailPolicy = {
      allowFunctions: [parseFunctionRef(name.toLowerCase())],
      blockFunctions: [],
      blockKeywords: [],
    };
    expect(check(sql, allowing)).toMatchObject({ allowed: false, code: 'DENIED_FUNCTION' });
    expect(check(sql, allowing).reason).toContain('runs SQL given as text');
  });

  // PostgreSQL 15's system administration functions (docs 9.27) with a side effect, one or more per family.
  it.each([
    ['pg_log_standby_snapshot()', 'writes to the server log or WAL'],
    ['pg_log_backend_memory_contexts(1)', 'writes to the server log or WAL'],
    ['pg_switch_wal()', 'writes to the server log or WAL'],
    ["pg_create_restore_point('x')", 'writes to the server log or WAL'],
    ["pg_backup_start('x')", 'takes backups'],
    ['pg_backup_stop()', 'takes backups'],
    ["pg_start_backup('x')", 'takes backups'],
    ['pg_wal_replay_pause()', 'controls recovery'],
    ['pg_wal_replay_resume()', 'controls recovery'],
    ['pg_promote()', 'signals server processes'],
    ["pg_logical_slot_get_changes('s', null, null)", 'replication slots'],
    ["pg_logical_slot_peek_changes('s', null, null)", 'replication slots'],
    ["pg_logical_slot_get_binary_changes('s', null, null)", 'replication slots'],
    ["pg_replication_slot_advance('s', '0/0')", 'replication slots'],
    ["pg_create_logical_replication_slot('s', 'test_decoding')", 'replication slots'],
    ["pg_create_physical_replication_slot('s')", 'replication slots'],
    ["pg_copy_logical_replication_slot('s', 't')", 'replication slots'],
    ["pg_drop_replication_slot('s')", 'replication slots'],
    ["pg_replication_origin_create('o')", 'replication slots or origins'],
    ["pg_logical_emit_message(true, 'p', 'x')", 'writes to the server log or WAL'],
    ['pg_export_snapshot()', 'exports a snapshot'],
    ['pg_current_xact_id()', 'assigns a transaction id'],
    ['pg_stat_clear_snapshot()', 'statistics'],
    ['pg_stat_force_next_flush()', 'statistics'],
    ['pg_stat_reset()', 'statistics'],
    ["pg_stat_reset_shared('bgwriter')", 'statistics'],
    ['pg_stat_reset_single_table_counters(1)', 'statistics'],
    ['pg_stat_statements_reset()', 'statistics'],
    ["brin_summarize_new_values('i')", 'maintains indexes'],
    ["brin_summarize_range('i', 0)", 'maintains indexes'],
    ["brin_desummarize_range('i', 0)", 'maintains indexes'],
    ["gin_clean_pending_list('i')", 'maintains indexes'],
    ['pg_import_system_collations(1)', 'changes the catalog'],
    ["pg_prewarm('t')", 'buffer cache'],
    ["pg_file_write('f', 'x', false)", 'files on the database server'],
  ])('denies %s (%s) even when an ALLOW_FUNCTION row names it and with the policy off', (call, what) => {
    const name = call.slice(0, call.indexOf('('));
    const allowing: SqlGuardrailPolicy = {
      allowFunctions: [parseFunctionRef(name), parseFunctionRef(`pg_catalog.${name}`)],
      blockFunctions: [],
      blockKeywords: [],
    };
    for (const sql of [`select ${call}`, `select pg_catalog.${call}`]) {
      expect(check(sql, allowing)).toMatchObject({ allowed: false, code: 'DENIED_FUNCTION' });
      expect(check(sql, allowing, { enforcePolicy: false }).code).toBe('DENIED_FUNCTION');
      expect(check(sql, allowing).reason).toContain(what);
    }
  });

  it('leaves harmless administration functions to the allow-list', () => {
    const harmless = [
      'pg_notification_queue_usage',
      'pg_is_in_recovery',
      'pg_current_wal_lsn',
      'pg_stat_get_db_stat_reset_time',
    ];
    const allowing: SqlGuardrailPolicy = {
      allowFunctions: harmless.map(parseFunctionRef),
      blockFunctions: [],
      blockKeywords: [],
    };
    for (const name of harmless) {
      expect(check(`select ${name}()`).code).toBe('FUNCTION_NOT_ALLOWED');
      expect(check(`select ${name}()`, allowing).allowed).toBe(true);
    }
  });

  it('with the policy off (safe_mode=false) skips the allow-list but never the denied classes or schemas', () => {
    const off = { enforcePolicy: false };
    expect(check("select md5('a')", policy, off).allowed).toBe(true);
    expect(check('select 1 as explain', policy, off).allowed).toBe(true);
    expect(check('select pg_advisory_lock(1)', policy, off).code).toBe('DENIED_FUNCTION');
    expect(check('select * from pg_user', policy, off).code).toBe('CATALOG_ACCESS');
    expect(check('delete from t', policy, off).code).toBe('NOT_READ_ONLY');
  });
});

describe('read-only SQL guardrail: fail closed', () => {
  it('refuses a parse tree shape it does not know', () => {
    const odd: SqlParser = {
      parse: () => ({ stmts: [{ stmt: { SelectStmt: { targetList: [], futureClause: [] } } }] }),
    };
    expect(checkReadOnlySql('select 1', odd)).toMatchObject({ allowed: false, code: 'UNSUPPORTED_SYNTAX' });
    const unknownNode: SqlParser = {
      parse: () => ({ stmts: [{ stmt: { SelectStmt: { targetList: [{ FutureExpr: {} }] } } }] }),
    };
    expect(checkReadOnlySql('select 1', unknownNode).code).toBe('UNSUPPORTED_SYNTAX');
    const malformed: SqlParser = { parse: () => ({ stmts: [{ stmt: { SelectStmt: { whereClause: 'x' } } }] }) };
    expect(checkReadOnlySql('select 1', malformed).code).toBe('UNSUPPORTED_SYNTAX');
  });

  it('refuses nesting deeper than any real query instead of exhausting the stack', () => {
    const deep = `select ${'abs('.repeat(600)}1${')'.repeat(600)}`;
    expect(check(deep).allowed).toBe(false);
  });
});
