/**
 * Legitimate analytics over the seeded business tables (zapper pack: zp_disco_request,
 * zp_disco_request_log, zp_order_downstream_check, zp_billbank_record) that the guardrail must
 * allow: window frames, set operations, IS [NOT] DISTINCT FROM, grouping sets, lateral joins,
 * recursive CTEs and the SQL-syntax functions. The e2e test runs each one as the tools role.
 */
export interface LegitimateQuery {
  sql: string;
  params?: Record<string, string | number>;
}

export const LEGITIMATE: LegitimateQuery[] = [
  { sql: 'select count(*) from zp_disco_request' },
  { sql: 'select status_code, count(*) as n from zp_disco_request group by status_code order by n desc' },
  { sql: 'select account_id, count(*) from business.zp_disco_request group by account_id having count(*) > 1' },
  {
    sql: 'select r.request_id, l.to_status, l.changed_at from zp_disco_request r join zp_disco_request_log l on l.request_id = r.request_id order by l.changed_at',
  },
  {
    sql: 'select request_id, changed_at, to_status, lag(to_status) over (partition by request_id order by changed_at) as prev_status from zp_disco_request_log',
  },
  {
    sql: 'select request_id, count(*) over (partition by request_id order by changed_at rows between unbounded preceding and current row) as running from zp_disco_request_log',
  },
  {
    sql: 'select request_id, sum(to_status) over (order by changed_at range between unbounded preceding and current row) from zp_disco_request_log',
  },
  {
    sql: 'select request_id, avg(to_status) over (partition by request_id order by log_id rows between 1 preceding and 1 following) from zp_disco_request_log',
  },
  {
    sql: 'select request_id, first_value(to_status) over w, last_value(to_status) over w from zp_disco_request_log window w as (partition by request_id order by changed_at rows between unbounded preceding and unbounded following)',
  },
  { sql: 'select request_id, row_number() over (order by requested_at desc) as rn from zp_disco_request' },
  { sql: 'select account_id, rank() over (order by count(*) desc) from zp_disco_request group by account_id' },
  { sql: 'select request_id from zp_disco_request except select request_id from zp_order_downstream_check' },
  { sql: 'select request_id from zp_disco_request intersect select request_id from zp_order_downstream_check' },
  { sql: 'select request_id from zp_disco_request union select request_id from zp_disco_request_log' },
  { sql: 'select request_id from zp_disco_request except all select request_id from zp_disco_request_log' },
  { sql: 'select log_id from zp_disco_request_log where from_status is distinct from to_status' },
  { sql: 'select log_id from zp_disco_request_log where from_status is not distinct from null' },
  {
    sql: 'select account_id, status_code, count(*) from zp_disco_request group by grouping sets ((account_id), (status_code), ())',
  },
  { sql: 'select account_id, status_code, count(*) from zp_disco_request group by rollup (account_id, status_code)' },
  { sql: 'select account_id, status_code, count(*) from zp_disco_request group by cube (account_id, status_code)' },
  { sql: 'select account_id, grouping(account_id), count(*) from zp_disco_request group by rollup (account_id)' },
  { sql: "select date_trunc('day', requested_at) as day, count(*) from zp_disco_request group by 1 order by 1" },
  { sql: 'select extract(hour from changed_at) as h, count(*) from zp_disco_request_log group by 1' },
  { sql: "select * from zp_disco_request where requested_at >= now() - interval '30 days'" },
  { sql: "select * from zp_disco_request where requested_at between '2026-01-01' and '2026-12-31'" },
  { sql: 'select * from zp_disco_request where request_id = :request_id', params: { request_id: 'ZPR1001' } },
  { sql: "select * from zp_disco_request where account_id in ('UPSA101', 'UPSA102')" },
  { sql: "select * from zp_disco_request where account_id like 'UPSA1%'" },
  { sql: "select * from zp_disco_request where account_id ilike 'upsa%' and not (status_code = 0)" },
  { sql: 'select * from zp_order_downstream_check where failure_reason is null' },
  { sql: 'select * from zp_order_downstream_check where failure_reason is not null order by checked_at desc limit 5' },
  { sql: "select coalesce(failure_reason, 'none') from zp_order_downstream_check" },
  { sql: "select case when check_status = 'FAILED' then 1 else 0 end as failed from zp_order_downstream_check" },
  {
    sql: "select sum(case when check_status = 'FAILED' then 1 else 0 end)::numeric / nullif(count(*), 0) as failure_rate from zp_order_downstream_check",
  },
  {
    sql: "select count(*) filter (where check_status = 'FAILED') as failed, count(*) as total from zp_order_downstream_check",
  },
  { sql: 'select percentile_cont(0.5) within group (order by balance) from zp_billbank_record' },
  { sql: 'select mode() within group (order by record_status) from zp_billbank_record' },
  {
    sql: 'select record_status, sum(balance), avg(balance), min(balance), max(balance) from zp_billbank_record group by record_status',
  },
  { sql: "select round(sum(balance), 2) as total from zp_billbank_record where record_status = 'OPEN'" },
  {
    sql: "select account_id, string_agg(record_status, ',' order by updated_at) from zp_billbank_record group by account_id",
  },
  { sql: 'select account_id, array_agg(distinct record_status) from zp_billbank_record group by account_id' },
  {
    sql: 'select distinct on (account_id) account_id, balance from zp_billbank_record order by account_id, updated_at desc',
  },
  {
    sql: 'select r.disconnect_id, b.balance from zp_disco_request r left join zp_billbank_record b on b.disconnect_id = r.disconnect_id',
  },
  {
    sql: 'select r.request_id, c.check_status from zp_disco_request r full outer join zp_order_downstream_check c using (request_id)',
  },
  {
    sql: "select r.request_id from zp_disco_request r where exists (select 1 from zp_order_downstream_check c where c.request_id = r.request_id and c.check_status = 'FAILED')",
  },
  {
    sql: 'select r.request_id from zp_disco_request r where not exists (select 1 from zp_disco_request_log l where l.request_id = r.request_id)',
  },
  {
    sql: 'select request_id, (select count(*) from zp_disco_request_log l where l.request_id = r.request_id) as transitions from zp_disco_request r',
  },
  {
    sql: 'select r.request_id, last.to_status from zp_disco_request r cross join lateral (select to_status from zp_disco_request_log l where l.request_id = r.request_id order by changed_at desc limit 1) last',
  },
  {
    sql: "with failed as (select request_id from zp_order_downstream_check where check_status = 'FAILED') select count(*) from failed",
  },
  { sql: 'with recursive n(i) as (select 1 union all select i + 1 from n where i < 10) select sum(i) from n' },
  {
    sql: 'with a as (select account_id, sum(balance) b from zp_billbank_record group by account_id), t as (select sum(b) s from a) select a.account_id, a.b / t.s from a, t',
  },
  { sql: "select * from (values (1, 'one'), (2, 'two')) as v(n, label)" },
  {
    sql: "select g::date as day from generate_series('2026-03-01'::timestamp, '2026-03-07'::timestamp, interval '1 day') g",
  },
  {
    sql: "select d.day, count(r.request_id) from generate_series(date '2026-03-01', date '2026-03-10', interval '1 day') as d(day) left join zp_disco_request r on r.requested_at::date = d.day group by d.day order by d.day",
  },
  {
    sql: 'select upper(account_id), lower(record_status), length(disconnect_id), substring(disconnect_id from 1 for 6) from zp_billbank_record',
  },
  {
    sql: "select trim(both ' ' from account_id), position('A' in account_id), overlay(account_id placing 'X' from 1 for 1) from zp_billbank_record",
  },
  {
    sql: "select split_part(request_id, '-', 1), replace(request_id, '-', ''), concat(account_id, ':', status_code) from zp_disco_request",
  },
  { sql: "select to_char(requested_at, 'YYYY-MM-DD') as day from zp_disco_request" },
  { sql: "select requested_at at time zone 'UTC' from zp_disco_request" },
  { sql: "select age(now(), requested_at), date_part('dow', requested_at) from zp_disco_request" },
  { sql: "select json_build_object('id', request_id, 'status', status_code) from zp_disco_request" },
  { sql: "select jsonb_agg(jsonb_build_object('id', record_id, 'balance', balance)) from zp_billbank_record" },
  { sql: 'select greatest(from_status, to_status), least(from_status, to_status) from zp_disco_request_log' },
  { sql: 'select abs(balance - 100), ceil(balance), floor(balance), balance::int from zp_billbank_record' },
  {
    sql: "select account_id from zp_billbank_record where balance > all (select balance from zp_billbank_record where record_status = 'CLOSED')",
  },
  { sql: 'select account_id from zp_billbank_record where balance = any (array[0.00, 112.75])' },
  { sql: "select (array['a', 'b', 'c'])[2], (array[1, 2, 3])[1:2]" },
  { sql: "select row(1, 'a') = row(1, 'a')" },
  { sql: "select cast(status_code as text) || '-' || request_id from zp_disco_request" },
  { sql: 'select ntile(4) over (order by balance) as quartile, balance from zp_billbank_record' },
  {
    sql: 'select request_id, changed_at - lag(changed_at) over (partition by request_id order by changed_at) as dwell from zp_disco_request_log',
  },
  { sql: 'select count(distinct account_id) from zp_disco_request' },
  { sql: 'select 1 where true is not false' },
  { sql: 'select * from zp_disco_request order by requested_at desc nulls last limit 10 offset 2' },
  { sql: 'select * from zp_disco_request fetch first 3 rows only' },
  { sql: 'select request_id from zp_disco_request where status_code between symmetric 300 and 100' },
  { sql: "select b.account_id from zp_billbank_record b where b.balance::text similar to '1%'" },
  {
    sql: 'select account_id, balance, sum(balance) over (partition by account_id order by updated_at groups between unbounded preceding and current row) from zp_billbank_record',
  },
  {
    sql: "select account_id, balance, avg(balance) over (order by updated_at range between interval '1 day' preceding and current row exclude current row) from zp_billbank_record",
  },
];
