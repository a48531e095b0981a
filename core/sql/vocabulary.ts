/**
 * What a tool query may name besides functions: operators, types, SQL value functions and
 * expression kinds. Operators and casts run functions too, so they are allow-listed like
 * functions: only built-in ones, which are free of side effects.
 */
function words(text: string): ReadonlySet<string> {
  return new Set(text.trim().split(/\s+/));
}

/** Built-in comparison, arithmetic, string, pattern, array, range and JSON operators. */
export const ALLOWED_OPERATORS = words(`
  = <> != < > <= >= + - * / % ^ || |/ ||/ @ & | # ~ << >>
  ~~ !~~ ~~* !~~* ~ ~* !~ !~*
  @> <@ && -> ->> #> #>> ? ?| ?& @? @@ #-
`);

/** A_Expr kinds (PostgreSQL's names): every comparison form a SELECT can write. */
export const ALLOWED_EXPRESSION_KINDS = words(`
  AEXPR_OP AEXPR_OP_ANY AEXPR_OP_ALL AEXPR_DISTINCT AEXPR_NOT_DISTINCT AEXPR_NULLIF AEXPR_IN
  AEXPR_LIKE AEXPR_ILIKE AEXPR_SIMILAR AEXPR_BETWEEN AEXPR_NOT_BETWEEN AEXPR_BETWEEN_SYM
  AEXPR_NOT_BETWEEN_SYM
`);

/**
 * Built-in scalar types a value may be cast to. The reg* types are absent on purpose: casting to
 * them looks names up in the system catalogs.
 */
export const ALLOWED_TYPES = words(`
  bool boolean int2 int4 int8 smallint integer int bigint numeric decimal float4 float8 real
  text varchar bpchar char character date time timetz timestamp timestamptz interval
  json jsonb uuid bytea bit varbit inet cidr macaddr money
  int4range int8range numrange tsrange tstzrange daterange
`);

/** Date and time keywords; the ones that name the session's user, role or schema are not here. */
export const ALLOWED_SQL_VALUE_FUNCTIONS = words(`
  SVFOP_CURRENT_DATE SVFOP_CURRENT_TIME SVFOP_CURRENT_TIME_N SVFOP_CURRENT_TIMESTAMP
  SVFOP_CURRENT_TIMESTAMP_N SVFOP_LOCALTIME SVFOP_LOCALTIME_N SVFOP_LOCALTIMESTAMP SVFOP_LOCALTIMESTAMP_N
`);

/** Subquery forms: EXISTS, IN/ANY/ALL/SOME, scalar, ARRAY(…) and row comparison. */
export const ALLOWED_SUBLINK_TYPES = words(`
  EXISTS_SUBLINK ALL_SUBLINK ANY_SUBLINK ROWCOMPARE_SUBLINK EXPR_SUBLINK ARRAY_SUBLINK
`);

/** Row-locking strengths as SQL, for the refusal reason. */
export const LOCK_CLAUSES: Readonly<Record<string, string>> = {
  LCS_FORKEYSHARE: 'FOR KEY SHARE',
  LCS_FORSHARE: 'FOR SHARE',
  LCS_FORNOKEYUPDATE: 'FOR NO KEY UPDATE',
  LCS_FORUPDATE: 'FOR UPDATE',
};

/** Statement node types named by the SQL keyword a config author wrote. */
export const STATEMENT_NAMES: Readonly<Record<string, string>> = {
  InsertStmt: 'INSERT',
  UpdateStmt: 'UPDATE',
  DeleteStmt: 'DELETE',
  MergeStmt: 'MERGE',
  CreateStmt: 'CREATE',
  CreateTableAsStmt: 'CREATE',
  DropStmt: 'DROP',
  TruncateStmt: 'TRUNCATE',
  CopyStmt: 'COPY',
  DoStmt: 'DO',
  CallStmt: 'CALL',
  ExplainStmt: 'EXPLAIN',
  VariableSetStmt: 'SET',
  VariableShowStmt: 'SHOW',
  TransactionStmt: 'TRANSACTION CONTROL',
  LockStmt: 'LOCK',
  GrantStmt: 'GRANT',
  GrantRoleStmt: 'GRANT',
  NotifyStmt: 'NOTIFY',
  ListenStmt: 'LISTEN',
  PrepareStmt: 'PREPARE',
  ExecuteStmt: 'EXECUTE',
  DeclareCursorStmt: 'DECLARE',
  VacuumStmt: 'VACUUM',
};
