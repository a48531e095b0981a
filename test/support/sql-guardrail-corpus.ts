/**
 * Statements the read-only SQL guardrail must refuse, grouped by attack class, and legitimate
 * analytics it must allow (default policy: no ce_mcp_sql_guardrail rows, schema `business`).
 * Shared by the guardrail tests, the e2e tests (LEGITIMATE runs against the seeded business
 * tables) and the benchmark. `reason` is a fragment the refusal reason must contain.
 */
export interface CorpusEntry {
  sql: string;
  reason: string;
}

const READ_ONLY = 'statements are not allowed';
const NOT_LISTED = 'not present in the allowlist';

/** Functions hidden inside special syntax: every clause and every syntactic position is checked. */
const HIDDEN_FUNCTIONS: CorpusEntry[] = [
  { sql: 'select substring(request_id from 1 for pg_sleep(1)::int) from zp_disco_request', reason: 'PG_SLEEP' },
  { sql: 'select substring(request_id from md5(request_id)::int) from zp_disco_request', reason: 'MD5' },
  {
    sql: "select overlay(request_id placing pg_read_file('/etc/passwd') from 1) from zp_disco_request",
    reason: 'PG_READ_FILE',
  },
  { sql: "select trim(both pg_read_file('/etc/hosts') from request_id) from zp_disco_request", reason: 'PG_READ_FILE' },
  { sql: "select position(pg_read_file('/etc/hosts') in request_id) from zp_disco_request", reason: 'PG_READ_FILE' },
  { sql: 'select extract(epoch from pg_postmaster_start_time())', reason: 'PG_POSTMASTER_START_TIME' },
  { sql: 'select count(*) filter (where pg_sleep(1) is null) from zp_disco_request', reason: 'PG_SLEEP' },
  {
    sql: 'select percentile_cont(0.5) within group (order by pg_backend_pid()) from zp_disco_request',
    reason: 'PG_BACKEND_PID',
  },
  { sql: 'select count(*) over (partition by pg_sleep(1)) from zp_disco_request', reason: 'PG_SLEEP' },
  { sql: 'select sum(status_code) over (order by pg_sleep(1)::text) from zp_disco_request', reason: 'PG_SLEEP' },
  {
    sql: 'select sum(status_code) over (rows between pg_backend_pid() preceding and current row) from zp_disco_request',
    reason: 'PG_BACKEND_PID',
  },
  {
    sql: 'select sum(status_code) over w from zp_disco_request window w as (partition by pg_sleep(1))',
    reason: 'PG_SLEEP',
  },
  { sql: 'select request_id from zp_disco_request order by pg_sleep(1)', reason: 'PG_SLEEP' },
  { sql: 'select request_id from zp_disco_request limit pg_backend_pid()', reason: 'PG_BACKEND_PID' },
  { sql: 'select request_id from zp_disco_request offset pg_backend_pid()', reason: 'PG_BACKEND_PID' },
  { sql: "select cast(pg_read_file('/etc/passwd') as text)", reason: 'PG_READ_FILE' },
  { sql: "select pg_read_file('/etc/passwd')::text", reason: 'PG_READ_FILE' },
  { sql: "select (array['a','b'])[pg_backend_pid()]", reason: 'PG_BACKEND_PID' },
  { sql: "select (array['a','b'])[1: pg_backend_pid()]", reason: 'PG_BACKEND_PID' },
  { sql: 'select row(1, pg_sleep(1))', reason: 'PG_SLEEP' },
  { sql: 'select * from (values (1), (pg_sleep(1)::int)) v(x)', reason: 'PG_SLEEP' },
  { sql: 'select * from zp_disco_request r cross join lateral (select pg_sleep(1)) s', reason: 'PG_SLEEP' },
  { sql: 'with s as (select pg_sleep(1)) select * from s', reason: 'PG_SLEEP' },
  {
    sql: 'with recursive r(n) as (select 1 union all select n + pg_backend_pid() from r where n < 3) select * from r',
    reason: 'PG_BACKEND_PID',
  },
  { sql: 'select (select pg_sleep(1))', reason: 'PG_SLEEP' },
  { sql: 'select 1 where exists (select pg_sleep(1))', reason: 'PG_SLEEP' },
  { sql: 'select 1 where 1 in (select pg_backend_pid())', reason: 'PG_BACKEND_PID' },
  { sql: 'select 1 where 1 = any (select pg_backend_pid())', reason: 'PG_BACKEND_PID' },
  { sql: 'select array(select pg_backend_pid())', reason: 'PG_BACKEND_PID' },
  { sql: 'select case when pg_sleep(1) is null then 1 end', reason: 'PG_SLEEP' },
  { sql: 'select case pg_backend_pid() when 1 then 1 end', reason: 'PG_BACKEND_PID' },
  { sql: 'select coalesce(null, pg_backend_pid())', reason: 'PG_BACKEND_PID' },
  { sql: 'select nullif(pg_backend_pid(), 0)', reason: 'PG_BACKEND_PID' },
  { sql: 'select greatest(1, pg_backend_pid())', reason: 'PG_BACKEND_PID' },
  { sql: 'select 1 where 1 between 0 and pg_backend_pid()', reason: 'PG_BACKEND_PID' },
  { sql: 'select 1 where pg_backend_pid() is distinct from 0', reason: 'PG_BACKEND_PID' },
  { sql: 'select 1 where 1 in (1, pg_backend_pid())', reason: 'PG_BACKEND_PID' },
  {
    sql: 'select account_id from zp_disco_request group by account_id having count(*) > pg_backend_pid()',
    reason: 'PG_BACKEND_PID',
  },
  {
    sql: 'select status_code from zp_disco_request group by grouping sets ((status_code), (pg_backend_pid()))',
    reason: 'PG_BACKEND_PID',
  },
  { sql: 'select distinct on (pg_backend_pid()) request_id from zp_disco_request', reason: 'PG_BACKEND_PID' },
  { sql: 'select r.* from zp_disco_request r join zp_disco_request_log l on pg_sleep(1) is null', reason: 'PG_SLEEP' },
  { sql: 'select * from pg_sleep(1)', reason: 'PG_SLEEP' },
  { sql: 'select * from rows from (generate_series(1, 2), pg_sleep(1)) t', reason: 'PG_SLEEP' },
  { sql: "select string_agg(request_id, pg_read_file('/etc/hosts')) from zp_disco_request", reason: 'PG_READ_FILE' },
  { sql: 'select array_agg(request_id order by pg_backend_pid()) from zp_disco_request', reason: 'PG_BACKEND_PID' },
  { sql: 'select lower(upper(lower(pg_sleep(1)::text)))', reason: 'PG_SLEEP' },
  {
    sql: "select requested_at at time zone pg_read_file('/etc/timezone') from zp_disco_request",
    reason: 'PG_READ_FILE',
  },
  { sql: "select 'a' collate \"C\" || pg_read_file('/etc/hosts')", reason: 'PG_READ_FILE' },
  { sql: 'select request_id from zp_disco_request except select pg_backend_pid()::text', reason: 'PG_BACKEND_PID' },
  { sql: "select json_build_object('k', pg_read_file('/etc/hosts'))", reason: 'PG_READ_FILE' },
  { sql: 'select generate_series(1, 3, pg_backend_pid())', reason: 'PG_BACKEND_PID' },
  { sql: "select (pg_stat_file('base')).size", reason: 'PG_STAT_FILE' },
];

/** Escaping the tools role, reaching the host or other databases, running SQL given as text. */
const ROLE_ESCAPE: CorpusEntry[] = [
  { sql: "select set_config('role', 'postgres', false)", reason: 'SET_CONFIG' },
  { sql: "select set_config('role', 'postgres', true)", reason: 'session settings' },
  { sql: "select set_config('search_path', 'public', false)", reason: 'SET_CONFIG' },
  { sql: "select current_setting('role')", reason: 'CURRENT_SETTING' },
  { sql: "select current_setting('data_directory')", reason: 'CURRENT_SETTING' },
  { sql: "select pg_catalog.set_config('role', 'postgres', false)", reason: 'PG_CATALOG.SET_CONFIG' },
  { sql: 'set role postgres', reason: `SET ${READ_ONLY}` },
  { sql: 'reset role', reason: `RESET ${READ_ONLY}` },
  { sql: 'set session authorization postgres', reason: 'SET' },
  { sql: 'set local search_path = public', reason: 'SET' },
  {
    sql: "select query_to_xml('select * from public.ce_conversation', true, true, '')",
    reason: 'runs SQL given as text',
  },
  { sql: "select query_to_xml_and_xmlschema('select 1', true, true, '')", reason: 'QUERY_TO_XML_AND_XMLSCHEMA' },
  { sql: "select table_to_xml('public.ce_conversation', true, true, '')", reason: 'TABLE_TO_XML' },
  { sql: "select cursor_to_xml('c', 1, true, true, '')", reason: 'CURSOR_TO_XML' },
  { sql: "select schema_to_xml('public', true, true, '')", reason: 'SCHEMA_TO_XML' },
  { sql: "select database_to_xml(true, true, '')", reason: 'DATABASE_TO_XML' },
  { sql: "select pg_read_file('/etc/passwd')", reason: 'reads or lists files' },
  { sql: "select pg_read_binary_file('/etc/passwd')", reason: 'PG_READ_BINARY_FILE' },
  { sql: "select pg_ls_dir('.')", reason: 'PG_LS_DIR' },
  { sql: 'select pg_ls_logdir()', reason: 'PG_LS_LOGDIR' },
  { sql: "select pg_stat_file('postgresql.conf')", reason: 'PG_STAT_FILE' },
  { sql: "select lo_import('/etc/passwd')", reason: 'large objects' },
  { sql: "select lo_export(1, '/tmp/x')", reason: 'LO_EXPORT' },
  { sql: 'select lo_get(1)', reason: 'LO_GET' },
  { sql: 'select loread(0, 10)', reason: 'LOREAD' },
  { sql: "select * from dblink('dbname=test', 'select 1') as t(a int)", reason: 'DBLINK' },
  { sql: "select dblink_exec('dbname=test', 'delete from t')", reason: 'another database' },
  { sql: "copy (select 1) to program 'id'", reason: `COPY ${READ_ONLY}` },
  { sql: "copy zp_disco_request to '/tmp/out.csv'", reason: 'COPY' },
  { sql: 'select current_user', reason: 'CURRENT_USER' },
  { sql: 'select session_user', reason: 'SESSION_USER' },
  { sql: 'select current_schema', reason: 'CURRENT_SCHEMA' },
  { sql: "select has_table_privilege('public.ce_conversation', 'select')", reason: 'HAS_TABLE_PRIVILEGE' },
  { sql: 'select version()', reason: 'VERSION' },
  { sql: 'select inet_server_addr()', reason: 'INET_SERVER_ADDR' },
];

/** Side effects that outlive the read-only transaction, and ways to stall the server. */
const OUTLIVES_TRANSACTION: CorpusEntry[] = [
  { sql: 'select pg_advisory_lock(7233001)', reason: 'advisory locks' },
  { sql: 'select pg_advisory_lock_shared(1)', reason: 'PG_ADVISORY_LOCK_SHARED' },
  { sql: 'select pg_try_advisory_lock(1)', reason: 'PG_TRY_ADVISORY_LOCK' },
  { sql: 'select pg_advisory_xact_lock(1)', reason: 'PG_ADVISORY_XACT_LOCK' },
  { sql: 'select pg_advisory_lock(1, 2)', reason: 'PG_ADVISORY_LOCK' },
  { sql: 'select pg_catalog.pg_advisory_lock(1)', reason: 'PG_CATALOG.PG_ADVISORY_LOCK' },
  { sql: 'select * from pg_advisory_lock(1)', reason: 'PG_ADVISORY_LOCK' },
  { sql: 'select pg_sleep(600)', reason: 'PG_SLEEP' },
  { sql: "select pg_sleep_for('5 minutes')", reason: 'PG_SLEEP_FOR' },
  { sql: "select pg_sleep_until('tomorrow')", reason: 'PG_SLEEP_UNTIL' },
  { sql: 'select pg_terminate_backend(1)', reason: 'signals server processes' },
  { sql: 'select pg_cancel_backend(1)', reason: 'PG_CANCEL_BACKEND' },
  { sql: 'select pg_reload_conf()', reason: 'PG_RELOAD_CONF' },
  { sql: "select nextval('s')", reason: 'changes sequences' },
  { sql: "select setval('s', 1)", reason: 'SETVAL' },
  { sql: 'select lastval()', reason: 'LASTVAL' },
  { sql: "select pg_notify('c', 'x')", reason: 'sends notifications' },
  { sql: 'select txid_current()', reason: 'TXID_CURRENT' },
  { sql: 'select pg_export_snapshot()', reason: 'PG_EXPORT_SNAPSHOT' },
  { sql: 'listen c', reason: `LISTEN ${READ_ONLY}` },
  { sql: "notify c, 'x'", reason: 'NOTIFY' },
  { sql: 'prepare q as select 1', reason: 'PREPARE' },
  { sql: 'declare c cursor with hold for select 1', reason: 'DECLARE' },
  { sql: 'lock table zp_disco_request in access exclusive mode', reason: 'LOCK' },
  { sql: 'select * from zp_disco_request for update', reason: 'FOR UPDATE' },
  { sql: 'select * from zp_disco_request for share', reason: 'FOR SHARE' },
  { sql: 'select * from zp_disco_request for no key update', reason: 'FOR NO KEY UPDATE' },
  { sql: 'select * from zp_disco_request for key share skip locked', reason: 'FOR KEY SHARE' },
  { sql: 'select * from (select * from zp_disco_request for update) s', reason: 'FOR UPDATE' },
  { sql: 'with x as (select * from zp_disco_request for update) select * from x', reason: 'FOR UPDATE' },
];

/** System catalogs, information_schema and every schema but the business ones. */
const CATALOG_READS: CorpusEntry[] = [
  { sql: 'select * from pg_user', reason: 'system catalog relation pg_user' },
  { sql: 'select * from pg_settings', reason: 'pg_settings' },
  { sql: 'select query from pg_stat_activity', reason: 'pg_stat_activity' },
  { sql: 'select * from pg_roles', reason: 'pg_roles' },
  { sql: 'select * from pg_shadow', reason: 'pg_shadow' },
  { sql: 'select * from pg_authid', reason: 'pg_authid' },
  { sql: 'select * from pg_catalog.pg_class', reason: 'system schema pg_catalog' },
  { sql: 'select * from "pg_catalog"."pg_proc"', reason: 'pg_catalog' },
  { sql: 'select * from PG_CATALOG.PG_DATABASE', reason: 'pg_catalog' },
  { sql: 'select * from information_schema.tables', reason: 'system schema information_schema' },
  { sql: "select * from information_schema.columns where table_schema = 'public'", reason: 'information_schema' },
  { sql: 'select * from public.ce_conversation', reason: 'schema public' },
  { sql: 'select user_text from public.ce_audit', reason: 'schema public' },
  { sql: 'select * from pg_toast.pg_toast_1259', reason: 'pg_toast' },
  { sql: 'select * from otherdb.public.ce_conversation', reason: 'another database' },
  { sql: 'select r.* from zp_disco_request r join public.ce_conversation c on true', reason: 'schema public' },
  { sql: 'select (select count(*) from pg_stat_activity)', reason: 'pg_stat_activity' },
  { sql: 'select * from zp_disco_request where exists (select 1 from pg_user)', reason: 'pg_user' },
  { sql: 'with u as (select * from pg_user) select * from u', reason: 'pg_user' },
  { sql: "select 'pg_authid'::regclass", reason: 'type REGCLASS' },
  { sql: "select 'now'::regproc", reason: 'REGPROC' },
  { sql: "select to_regclass('public.ce_conversation')", reason: 'TO_REGCLASS' },
  { sql: 'select pg_get_userbyid(10)', reason: 'PG_GET_USERBYID' },
  { sql: "select pg_catalog.pg_get_viewdef('pg_user')", reason: 'PG_GET_VIEWDEF' },
  { sql: 'select public.ce_conversation.user_text', reason: 'schema public' },
  { sql: 'select 1::public.some_type', reason: 'schema public' },
];

/** Statements that are not queries: writes, DDL, administration, transaction control. */
const WRITES_AND_DDL: CorpusEntry[] = [
  { sql: 'DELETE FROM zp_disco_request', reason: `DELETE ${READ_ONLY}` },
  { sql: "update zp_disco_request set status_code = 0 where request_id = 'x'", reason: `UPDATE ${READ_ONLY}` },
  { sql: "INSERT INTO zp_disco_request (request_id) VALUES ('x')", reason: `INSERT ${READ_ONLY}` },
  { sql: 'insert into zp_disco_request select * from zp_disco_request', reason: 'INSERT' },
  {
    sql: 'MERGE INTO zp_disco_request t USING zp_disco_request s ON t.request_id = s.request_id WHEN MATCHED THEN DELETE',
    reason: 'MERGE',
  },
  { sql: 'DROP TABLE zp_disco_request', reason: 'DROP' },
  { sql: 'drop schema business cascade', reason: 'DROP' },
  { sql: 'TRUNCATE zp_disco_request', reason: 'TRUNCATE' },
  { sql: 'ALTER TABLE zp_disco_request ADD COLUMN c int', reason: 'ALTER' },
  { sql: 'alter role convengine_tools_ro superuser', reason: 'ALTER' },
  { sql: 'CREATE TABLE x (a int)', reason: 'CREATE' },
  { sql: 'create table t2 as select * from zp_disco_request', reason: 'CREATE' },
  { sql: "create function f() returns int language sql as 'select 1'", reason: 'CREATE' },
  { sql: 'create extension dblink', reason: 'CREATE' },
  { sql: 'CALL p()', reason: `CALL ${READ_ONLY}` },
  { sql: 'grant select on zp_disco_request to public', reason: 'GRANT' },
  { sql: 'revoke select on zp_disco_request from public', reason: 'REVOKE' },
  { sql: 'vacuum full zp_disco_request', reason: 'VACUUM' },
  { sql: 'analyze zp_disco_request', reason: 'ANALYZE' },
  { sql: 'explain analyze delete from zp_disco_request', reason: 'EXPLAIN' },
  { sql: 'begin', reason: 'BEGIN' },
  { sql: 'commit', reason: 'COMMIT' },
  { sql: 'refresh materialized view mv', reason: 'REFRESH' },
  { sql: "comment on table zp_disco_request is 'x'", reason: 'COMMENT' },
  { sql: 'select * into t2 from zp_disco_request', reason: 'SELECT INTO' },
  { sql: 'SELECT request_id INTO TEMP t3 FROM zp_disco_request', reason: 'SELECT INTO' },
  { sql: 'with x as (delete from zp_disco_request returning *) select * from x', reason: 'data-modifying DELETE' },
  {
    sql: 'with x as (update zp_disco_request set status_code = 1 returning *) select count(*) from x',
    reason: 'data-modifying UPDATE',
  },
  {
    sql: "with x as (insert into zp_disco_request (request_id) values ('x') returning *) select 1",
    reason: 'data-modifying INSERT',
  },
  {
    sql: 'with a as (select 1), b as (delete from zp_disco_request returning 1) select * from a',
    reason: 'WITH clause "b"',
  },
  { sql: 'with x as (select 1) delete from zp_disco_request', reason: `DELETE ${READ_ONLY}` },
];

/** More than one statement, however it is disguised. */
const MULTI_STATEMENT: CorpusEntry[] = [
  { sql: 'select 1; select 2', reason: 'single statement' },
  { sql: 'select 1; delete from zp_disco_request', reason: 'single statement' },
  { sql: 'select 1; -- harmless\n delete from zp_disco_request', reason: 'single statement' },
  { sql: 'select 1 /* ; */ ; drop table zp_disco_request', reason: 'single statement' },
  { sql: "select ';' ; drop table zp_disco_request", reason: 'single statement' },
  { sql: 'select 1;\nselect pg_sleep(10)', reason: 'single statement' },
  { sql: 'select 1; set role postgres', reason: 'single statement' },
];

/** Comments, quoting and case used to hide what a statement does. */
const COMMENTS_AND_QUOTING: CorpusEntry[] = [
  { sql: '/* select */ delete from zp_disco_request', reason: 'DELETE' },
  { sql: 'delete/**/from zp_disco_request', reason: 'DELETE' },
  { sql: 'DeLeTe FrOm zp_disco_request', reason: 'DELETE' },
  { sql: '\n\n  update zp_disco_request set status_code = 2', reason: 'UPDATE' },
  { sql: 'select "pg_sleep"(1)', reason: 'PG_SLEEP' },
  { sql: 'SELECT PG_SLEEP(1)', reason: 'PG_SLEEP' },
  { sql: 'select pg_sleep/**/(1)', reason: 'PG_SLEEP' },
  { sql: 'select pg_catalog . pg_sleep (1)', reason: 'PG_SLEEP' },
  { sql: 'select * from "pg_user"', reason: 'pg_user' },
  {
    sql: 'select * from "PG_CATALOG".pg_class',
    reason: 'system schema pg_catalog',
  },
  { sql: 'select * from "public"."ce_conversation"', reason: 'schema public' },
  { sql: 'select 1 /* /* nested */ pg_sleep(1) */, pg_sleep(2)', reason: 'PG_SLEEP' },
  { sql: "select 'unterminated", reason: 'unterminated' },
  { sql: 'select 1 /* never closed', reason: 'unterminated' },
  { sql: 'select "unterminated', reason: 'unterminated' },
  { sql: 'select :a, $1', reason: 'mixes named' },
  { sql: '', reason: 'blank' },
  { sql: '   ', reason: 'blank' },
  { sql: ';', reason: 'blank' },
  { sql: '-- only a comment', reason: 'blank' },
  { sql: 'select * from zp_disco_request tablesample system (10)', reason: 'RANGE TABLE SAMPLE' },
  { sql: 'select xmlelement(name a, pg_backend_pid())', reason: 'XML EXPR' },
  { sql: 'select request_id from zp_disco_request order by request_id using ~<~', reason: 'operator ~<~' },
  { sql: 'select 1 operator(public.+) 1', reason: 'operator public.+' },
];

/** Unicode escapes in identifiers and strings. */
const UNICODE_ESCAPES: CorpusEntry[] = [
  { sql: 'select U&"pg_sle\\0065p"(1)', reason: 'PG_SLEEP' },
  { sql: 'select U&"\\0070g_read_file"(\'/etc/passwd\')', reason: 'PG_READ_FILE' },
  { sql: 'select * from U&"pg\\005fuser"', reason: 'pg_user' },
  { sql: 'select * from U&"pg_catalog".U&"pg_class"', reason: 'pg_catalog' },
  { sql: 'select * from U&"publi\\0063".ce_conversation', reason: 'schema public' },
  { sql: 'select U&"!0070g_sleep" UESCAPE \'!\' (1)', reason: 'PG_SLEEP' },
  { sql: "select U&'\\0064' || pg_backend_pid()", reason: 'PG_BACKEND_PID' },
  { sql: "select E'\\x41', pg_read_file(E'\\x2fetc/passwd')", reason: 'PG_READ_FILE' },
  { sql: 'select "PG_SLEEP"(1)', reason: 'PG_SLEEP' },
];

/** Dollar quoting used to hide a statement boundary or SQL text. */
const DOLLAR_QUOTING: CorpusEntry[] = [
  { sql: 'do $$ begin delete from zp_disco_request; end $$', reason: 'DO' },
  { sql: 'select $$ ; $$; delete from zp_disco_request', reason: 'single statement' },
  { sql: 'select $a$x$a$; drop table zp_disco_request', reason: 'single statement' },
  { sql: "select query_to_xml($q$select * from public.ce_conversation$q$, true, true, '')", reason: 'QUERY_TO_XML' },
  { sql: 'select pg_read_file($p$/etc/passwd$p$)', reason: 'PG_READ_FILE' },
  { sql: 'select $$unterminated', reason: 'unterminated' },
  { sql: 'select $tag$ $$ ; drop table zp_disco_request; $$ $tag$, pg_sleep(1)', reason: 'PG_SLEEP' },
];

export const ATTACK_CLASSES: Readonly<Record<string, CorpusEntry[]>> = {
  'functions hidden in special syntax': HIDDEN_FUNCTIONS,
  'role escape, files, SQL as text': ROLE_ESCAPE,
  'side effects outliving the transaction, stalls': OUTLIVES_TRANSACTION,
  'catalog and other schemas': CATALOG_READS,
  'writes and DDL': WRITES_AND_DDL,
  'multi-statement': MULTI_STATEMENT,
  'comments and quoting tricks': COMMENTS_AND_QUOTING,
  'unicode escapes': UNICODE_ESCAPES,
  'dollar quoting': DOLLAR_QUOTING,
};

export const REFUSED: CorpusEntry[] = Object.values(ATTACK_CLASSES).flat();

/** Denied functions for the property test: each must be refused wherever it sits. */
export const DENIED_FUNCTIONS = [
  'pg_sleep',
  'pg_read_file',
  'set_config',
  'current_setting',
  'pg_advisory_lock',
  'pg_try_advisory_lock',
  'nextval',
  'query_to_xml',
  'lo_import',
  'dblink',
  'pg_notify',
  'pg_terminate_backend',
  'txid_current',
  'md5',
  'pg_backend_pid',
  'version',
];

export { NOT_LISTED };
