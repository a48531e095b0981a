import fc from 'fast-check';
import { loadSqlParser } from '../../../activities/tools/sql/parser';
import { checkReadOnlySql, type SqlParser } from '../../../core/sql';
import { DENIED_FUNCTIONS } from '../../support/sql-guardrail-corpus';

/**
 * Property: a denied function is refused wherever it sits. Each case nests a denied call inside
 * random allowed wrappers and places the result in one of many syntactic positions (every clause,
 * window specs, FILTER, WITHIN GROUP, casts, subscripts, row constructors, VALUES, LATERAL, CTE
 * bodies, set operations and subqueries in every clause).
 */
const POSITIONS: readonly ((e: string) => string)[] = [
  (e) => `select ${e}`,
  (e) => `select request_id from zp_disco_request where ${e} is not null`,
  (e) => `select count(*) filter (where ${e} is null) from zp_disco_request`,
  (e) => `select percentile_cont(0.5) within group (order by ${e}) from zp_disco_request`,
  (e) => `select sum(status_code) over (partition by ${e}) from zp_disco_request`,
  (e) =>
    `select sum(status_code) over (order by ${e} rows between unbounded preceding and current row) from zp_disco_request`,
  (e) => `select sum(status_code) over w from zp_disco_request window w as (order by ${e})`,
  (e) => `select request_id from zp_disco_request order by ${e}`,
  (e) => `select request_id from zp_disco_request limit (${e})::int`,
  (e) => `select request_id from zp_disco_request offset (${e})::int`,
  (e) => `select cast(${e} as text)`,
  (e) => `select (array[1, 2])[(${e})::int]`,
  (e) => `select row(1, ${e})`,
  (e) => `select * from (values (1, ${e})) v(a, b)`,
  (e) => `select * from zp_disco_request r cross join lateral (select ${e} as x) s`,
  (e) => `with c as (select ${e} as x) select * from c`,
  (e) => `select 1 union select 1 from zp_disco_request where ${e} is null`,
  (e) => `select request_id from zp_disco_request except select (${e})::text`,
  (e) => `select 1 where exists (select ${e})`,
  (e) => `select (select ${e})`,
  (e) => `select 1 where 1 in (select (${e})::int)`,
  (e) => `select account_id from zp_disco_request group by account_id having count(*) > (${e})::int`,
  (e) => `select status_code from zp_disco_request group by grouping sets ((status_code), (${e}))`,
  (e) => `select distinct on (${e}) request_id from zp_disco_request`,
  (e) => `select 1 from zp_disco_request r join zp_disco_request_log l on (${e}) is null`,
  (e) => `select case when (${e}) is null then 1 else 0 end`,
  (e) => `select coalesce(null, ${e})`,
  (e) => `select substring('abc' from 1 for (${e})::int)`,
  (e) => `select overlay('abc' placing (${e})::text from 1)`,
  (e) => `select trim(both (${e})::text from 'abc')`,
  (e) => `select 1 where (${e}) is distinct from null`,
  (e) => `select 1 where 1 between 0 and (${e})::int`,
  (e) => `select json_build_object('k', ${e})`,
  (e) => `select array_agg(request_id order by ${e}) from zp_disco_request`,
  (e) => `with recursive r(n) as (select 1 union all select n + 1 from r where (${e}) is null) select * from r`,
];

const WRAPPERS: readonly ((e: string) => string)[] = [
  (e) => `lower((${e})::text)`,
  (e) => `coalesce(${e}, null)`,
  (e) => `(${e})`,
  (e) => `length((${e})::text)`,
  (e) => `greatest(${e}, null)`,
  (e) => `case when true then ${e} end`,
  (e) => `nullif(${e}, null)`,
  (e) => `(select ${e})`,
];

const DENIED_CALLS: Record<string, string> = {
  pg_sleep: 'pg_sleep(1)',
  pg_read_file: "pg_read_file('/etc/passwd')",
  set_config: "set_config('role', 'postgres', false)",
  current_setting: "current_setting('role')",
  pg_advisory_lock: 'pg_advisory_lock(1)',
  pg_try_advisory_lock: 'pg_try_advisory_lock(1)',
  nextval: "nextval('s')",
  query_to_xml: "query_to_xml('select 1', true, true, '')",
  lo_import: "lo_import('/etc/passwd')",
  dblink: "dblink('dbname=x', 'select 1')",
  pg_notify: "pg_notify('c', 'x')",
  pg_terminate_backend: 'pg_terminate_backend(1)',
  txid_current: 'txid_current()',
  md5: "md5('a')",
  pg_backend_pid: 'pg_backend_pid()',
  version: 'version()',
};

let parser: SqlParser;
beforeAll(async () => {
  parser = await loadSqlParser();
});

test('every denied function in the corpus list has a call form', () => {
  expect(Object.keys(DENIED_CALLS).sort()).toEqual([...DENIED_FUNCTIONS].sort());
});

test('every position and wrapper is valid SQL the guardrail allows with an allowed value in the hole', () => {
  for (const position of POSITIONS) {
    for (const wrap of WRAPPERS) {
      const sql = position(wrap('1'));
      expect({ sql, verdict: checkReadOnlySql(sql, parser) }).toMatchObject({ verdict: { allowed: true } });
    }
  }
});

test('a denied function nested in random allowed wrappers is refused in every syntactic position', () => {
  const arbitrary = fc.record({
    fn: fc.constantFrom(...DENIED_FUNCTIONS),
    wrappers: fc.array(fc.nat(WRAPPERS.length - 1), { maxLength: 4 }),
    position: fc.nat(POSITIONS.length - 1),
  });
  fc.assert(
    fc.property(arbitrary, ({ fn, wrappers, position }) => {
      const call = DENIED_CALLS[fn] as string;
      const expression = wrappers.reduce((e, w) => (WRAPPERS[w] as (e: string) => string)(e), call);
      const sql = (POSITIONS[position] as (e: string) => string)(expression);
      const verdict = checkReadOnlySql(sql, parser);
      return !verdict.allowed && verdict.reason.includes(fn.toUpperCase());
    }),
    { numRuns: 2000 }
  );
});
