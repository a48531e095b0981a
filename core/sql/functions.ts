import type { SqlGuardrailRow } from '../config/tool-rows';

/**
 * Functions are deny-by-default (P4): a SELECT can write through a function (nextval, setval,
 * set_config, lo_import, dblink_exec…) or hurt the server (pg_sleep, pg_terminate_backend), so
 * only functions known to be free of side effects may be called. ce_mcp_sql_guardrail rows extend
 * the list (ALLOW_FUNCTION) or take functions away from it (BLOCK_FUNCTION, which always wins).
 */
function words(text: string): ReadonlySet<string> {
  return new Set(text.trim() === '' ? [] : text.trim().split(/\s+/));
}

const AGGREGATES = words(`
  count sum avg min max array_agg string_agg json_agg jsonb_agg json_object_agg jsonb_object_agg
  bool_and bool_or every bit_and bit_or stddev stddev_pop stddev_samp variance var_pop var_samp corr
  covar_pop covar_samp percentile_cont percentile_disc mode
`);
const STRINGS = words(`
  lower upper initcap length char_length character_length octet_length bit_length substring substr
  trim btrim ltrim rtrim lpad rpad replace translate split_part concat concat_ws left right repeat
  reverse strpos position starts_with format regexp_replace regexp_match regexp_matches
  regexp_split_to_array regexp_split_to_table string_to_array array_to_string to_hex ascii chr
  overlay quote_ident quote_literal quote_nullable
`);
const MATH = words(`
  abs ceil ceiling floor round trunc mod power pow sqrt cbrt exp ln log log10 sign pi degrees radians
  div width_bucket greatest least
`);
const DATE_TIME = words(`
  now current_date current_time current_timestamp localtime localtimestamp date_trunc date_part
  date_bin extract age to_char to_date to_timestamp to_number make_date make_time make_timestamp
  make_timestamptz make_interval justify_days justify_hours justify_interval isfinite timezone
  clock_timestamp statement_timestamp transaction_timestamp
`);
const JSON_FUNCTIONS = words(`
  to_json to_jsonb row_to_json array_to_json json_build_object jsonb_build_object json_build_array
  jsonb_build_array json_object jsonb_object json_array_length jsonb_array_length json_extract_path
  json_extract_path_text jsonb_extract_path jsonb_extract_path_text json_array_elements
  jsonb_array_elements json_array_elements_text jsonb_array_elements_text json_each jsonb_each
  json_each_text jsonb_each_text json_object_keys jsonb_object_keys json_typeof jsonb_typeof
  json_strip_nulls jsonb_strip_nulls jsonb_pretty jsonb_path_query jsonb_path_query_first
  jsonb_path_exists jsonb_path_query_array
`);
const WINDOW = words(`
  row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value last_value nth_value
`);
const ARRAYS_AND_SETS = words(`
  array_length array_lower array_upper cardinality array_position array_positions array_remove
  array_replace array_append array_prepend array_cat array_dims unnest generate_series
  generate_subscripts
`);
/**
 * SQL syntax PostgreSQL reports as calls of pg_catalog functions (`SUBSTRING(x FROM 1 FOR 2)`,
 * `TRIM(BOTH …)`, `x AT TIME ZONE z`, `SIMILAR TO`), plus null handling.
 */
const SYNTAX_FORMS = words(`
  coalesce nullif num_nulls num_nonnulls btrim ltrim rtrim timezone similar_to_escape similar_escape
  like_escape normalize is_normalized
`);
export const BUILT_IN_ALLOWED_FUNCTIONS: ReadonlySet<string> = new Set([
  ...AGGREGATES,
  ...STRINGS,
  ...MATH,
  ...DATE_TIME,
  ...JSON_FUNCTIONS,
  ...WINDOW,
  ...ARRAYS_AND_SETS,
  ...SYNTAX_FORMS,
]);

/**
 * Classes of functions that reach outside the query. They are refused even when a
 * ce_mcp_sql_guardrail row allows them, and even for a DB tool with safe_mode off: no config row
 * may let model-written SQL read server files, run SQL given as text, change settings, take
 * locks that outlive the transaction, or change the server (WAL, replication slots, statistics,
 * indexes, the catalog). Families are matched by prefix, so a sibling added later is denied too.
 */
interface DeniedClass {
  what: string;
  names: ReadonlySet<string>;
  pattern?: RegExp;
}

const DENIED_CLASSES: readonly DeniedClass[] = [
  {
    what: 'reads or lists files on the database server',
    // pg_file_* and pg_logdir_ls are the adminpack extension's.
    names: words('pg_read_file pg_read_binary_file pg_stat_file pg_current_logfile pg_logdir_ls'),
    pattern: /^pg_(ls_|file_)/,
  },
  { what: 'reads or writes large objects (server files)', names: words('loread lowrite'), pattern: /^lo_/ },
  { what: 'connects to another database', names: words('dblink'), pattern: /^(dblink|postgres_fdw)/ },
  {
    what: 'runs SQL given as text',
    // ts_stat and ts_rewrite's second form run their text argument as a query; crosstab and connectby
    // (the tablefunc extension) do too.
    names: words('query_to_xml query_to_xmlschema query_to_xml_and_xmlschema ts_stat ts_rewrite connectby'),
    pattern: /^((query|table|cursor|schema|database)_to_xml|crosstab)/,
  },
  {
    what: 'reads or changes session settings (role, search_path)',
    names: words('set_config current_setting pg_settings_get_flags'),
  },
  { what: 'takes advisory locks', names: words(''), pattern: /^pg_(try_)?advisory_/ },
  { what: 'sleeps and holds a connection', names: words('pg_sleep pg_sleep_for pg_sleep_until') },
  {
    what: 'signals server processes',
    names: words('pg_cancel_backend pg_terminate_backend pg_reload_conf pg_promote'),
    pattern: /^pg_rotate_logfile/,
  },
  { what: 'changes sequences', names: words('nextval setval currval lastval') },
  { what: 'sends notifications', names: words('pg_notify') },
  // PostgreSQL's system administration functions (docs chapter 9.27) that change the server, by family.
  {
    what: 'writes to the server log or WAL, takes backups or controls recovery',
    // pg_log_*: pg_log_backend_memory_contexts, pg_log_standby_snapshot; the *_xlog_* names are PostgreSQL 9's.
    names: words('pg_switch_wal pg_switch_xlog pg_create_restore_point pg_logical_emit_message'),
    pattern: /^pg_(log_|backup_|(start|stop)_backup|(wal|xlog)_replay_)/,
  },
  {
    what: 'uses replication slots or origins (decodes every change in the database)',
    // pg_logical_slot_{get,peek}[_binary]_changes, pg_replication_slot_advance, pg_replication_origin_*,
    // pg_{create,drop,copy}_*replication_slot.
    names: words(''),
    pattern: /^pg_(logical_|replication_)|replication_slot/,
  },
  {
    what: 'assigns a transaction id or exports a snapshot',
    names: words('txid_current pg_current_xact_id pg_export_snapshot'),
  },
  {
    what: 'resets or flushes statistics',
    // pg_stat_reset*, and extensions' pg_stat_statements_reset and the like.
    names: words('pg_stat_clear_snapshot pg_stat_force_next_flush'),
    pattern: /^pg_stat_reset|^pg_stat\w*_reset$/,
  },
  {
    what: 'maintains indexes',
    names: words('gin_clean_pending_list'),
    pattern: /^brin_(de)?summarize_/,
  },
  {
    what: 'changes the catalog or the buffer cache',
    names: words('pg_import_system_collations pg_nextoid pg_prewarm'),
  },
];

/** What the function does, when it belongs to a class that is never allowed; null otherwise. */
export function deniedClassOf(name: string): string | null {
  const found = DENIED_CLASSES.find((c) => c.names.has(name) || (c.pattern?.test(name) ?? false));
  return found ? found.what : null;
}

/** A function reference as written: `schema` is null when unqualified. Both lower-cased. */
export interface FunctionRef {
  schema: string | null;
  name: string;
}

export interface SqlGuardrailPolicy {
  allowFunctions: FunctionRef[];
  blockFunctions: FunctionRef[];
  blockKeywords: string[];
}

export const EMPTY_SQL_POLICY: SqlGuardrailPolicy = { allowFunctions: [], blockFunctions: [], blockKeywords: [] };

export function parseFunctionRef(value: string): FunctionRef {
  const text = value.trim().toLowerCase().replace(/\(\)$/, '');
  const dot = text.lastIndexOf('.');
  return dot < 0 ? { schema: null, name: text } : { schema: text.slice(0, dot), name: text.slice(dot + 1) };
}

/** Builds the policy from enabled ce_mcp_sql_guardrail rows; rule types match case-insensitively. */
export function sqlPolicyFromRows(rows: readonly SqlGuardrailRow[]): SqlGuardrailPolicy {
  const policy: SqlGuardrailPolicy = { allowFunctions: [], blockFunctions: [], blockKeywords: [] };
  for (const row of rows) {
    if (!row.enabled || row.matchValue.trim() === '') continue;
    const kind = row.ruleType.trim().toUpperCase();
    if (kind === 'ALLOW_FUNCTION') policy.allowFunctions.push(parseFunctionRef(row.matchValue));
    else if (kind === 'BLOCK_FUNCTION') policy.blockFunctions.push(parseFunctionRef(row.matchValue));
    else if (kind === 'BLOCK_KEYWORD') policy.blockKeywords.push(row.matchValue.trim().toLowerCase());
  }
  return policy;
}

/** An unqualified BLOCK entry blocks the name in every schema; a qualified one only in that schema. */
function blockMatches(entry: FunctionRef, call: FunctionRef): boolean {
  if (entry.name !== call.name) return false;
  // Unqualified calls of built-ins resolve to pg_catalog, so a pg_catalog block covers them too.
  return (
    entry.schema === null || entry.schema === call.schema || (entry.schema === 'pg_catalog' && call.schema === null)
  );
}

/** An ALLOW entry matches exactly as written: unqualified allows unqualified calls only. */
function allowMatches(entry: FunctionRef, call: FunctionRef): boolean {
  return entry.name === call.name && entry.schema === call.schema;
}

export type FunctionVerdict = 'ALLOWED' | 'DENIED' | 'BLOCKED' | 'NOT_ALLOWED';

/** DENIED (a class no row can allow) wins over BLOCKED (a row), which wins over any ALLOW. */
export function functionVerdict(call: FunctionRef, policy: SqlGuardrailPolicy): FunctionVerdict {
  const folded = { schema: call.schema?.toLowerCase() ?? null, name: call.name.toLowerCase() };
  if (deniedClassOf(folded.name) !== null) return 'DENIED';
  if (policy.blockFunctions.some((entry) => blockMatches(entry, folded))) return 'BLOCKED';
  const builtIn = (call.schema === null || call.schema === 'pg_catalog') && BUILT_IN_ALLOWED_FUNCTIONS.has(call.name);
  if (builtIn || policy.allowFunctions.some((entry) => allowMatches(entry, call))) return 'ALLOWED';
  return 'NOT_ALLOWED';
}

export function formatFunctionRef(call: FunctionRef): string {
  return (call.schema === null ? call.name : `${call.schema}.${call.name}`).toUpperCase();
}
