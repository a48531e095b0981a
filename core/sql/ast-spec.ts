/**
 * The allow-list of PostgreSQL parse-tree shapes a read-only tool query may have. The tree is
 * PostgreSQL's own (libpg_query's JSON: a node is `{"TypeName": {field: value}}`), so what is
 * checked is exactly what the server will execute. Every node type and every field a query may
 * use is listed here with the kind of value it holds; anything else — a node type or a field this
 * table does not name — is refused, so a construct added to the grammar later fails closed.
 *
 * Field kinds:
 * - `scalar`: a string, number or boolean (names, flags, enum values, positions);
 * - `node` / `nodes`: one wrapped node / a list of wrapped nodes, each walked;
 * - `{ inline: T }`: the fields of T without the wrapper (e.g. `FuncCall.over` is a WindowDef);
 * - `scalars`: an object of scalars only (the value of an A_Const).
 */
export type FieldKind = 'scalar' | 'node' | 'nodes' | 'scalars' | { inline: string };

export type NodeSpec = Readonly<Record<string, FieldKind>>;

const S = 'scalar' as const;
const N = 'node' as const;
const L = 'nodes' as const;
const inline = (type: string): FieldKind => ({ inline: type });

/** Query structure: the SELECT and what it reads from. */
const QUERY: Record<string, NodeSpec> = {
  SelectStmt: {
    distinctClause: L,
    targetList: L,
    fromClause: L,
    whereClause: N,
    groupClause: L,
    groupDistinct: S,
    havingClause: N,
    windowClause: L,
    valuesLists: L,
    sortClause: L,
    limitOffset: N,
    limitCount: N,
    limitOption: S,
    withClause: inline('WithClause'),
    op: S,
    all: S,
    larg: inline('SelectStmt'),
    rarg: inline('SelectStmt'),
  },
  WithClause: { ctes: L, recursive: S, location: S },
  CommonTableExpr: { ctename: S, aliascolnames: L, ctematerialized: S, ctequery: N, location: S },
  ResTarget: { name: S, val: N, location: S },
  RangeVar: { schemaname: S, relname: S, inh: S, relpersistence: S, alias: inline('Alias'), location: S },
  Alias: { aliasname: S, colnames: L },
  RangeSubselect: { lateral: S, subquery: N, alias: inline('Alias') },
  RangeFunction: { lateral: S, ordinality: S, is_rowsfrom: S, functions: L, alias: inline('Alias') },
  JoinExpr: {
    jointype: S,
    isNatural: S,
    larg: N,
    rarg: N,
    usingClause: L,
    join_using_alias: inline('Alias'),
    quals: N,
    alias: inline('Alias'),
  },
  SortBy: { node: N, sortby_dir: S, sortby_nulls: S, useOp: L, location: S },
  WindowDef: {
    name: S,
    refname: S,
    partitionClause: L,
    orderClause: L,
    frameOptions: S,
    startOffset: N,
    endOffset: N,
    location: S,
  },
  GroupingSet: { kind: S, content: L, location: S },
  List: { items: L },
};

/** Expressions. */
const EXPRESSIONS: Record<string, NodeSpec> = {
  A_Const: {
    ival: 'scalars',
    fval: 'scalars',
    boolval: 'scalars',
    sval: 'scalars',
    bsval: 'scalars',
    isnull: S,
    location: S,
  },
  String: { sval: S },
  A_Star: {},
  ParamRef: { number: S, location: S },
  ColumnRef: { fields: L, location: S },
  A_Expr: { kind: S, name: L, lexpr: N, rexpr: N, rexpr_list_start: S, rexpr_list_end: S, location: S },
  BoolExpr: { boolop: S, args: L, location: S },
  NullTest: { arg: N, nulltesttype: S, argisrow: S, location: S },
  BooleanTest: { arg: N, booltesttype: S, location: S },
  FuncCall: {
    funcname: L,
    args: L,
    agg_order: L,
    agg_filter: N,
    over: inline('WindowDef'),
    agg_within_group: S,
    agg_star: S,
    agg_distinct: S,
    func_variadic: S,
    funcformat: S,
    location: S,
  },
  NamedArgExpr: { arg: N, name: S, argnumber: S, location: S },
  TypeCast: { arg: N, typeName: inline('TypeName'), location: S },
  TypeName: { names: L, typmods: L, typemod: S, arrayBounds: L, location: S },
  CollateClause: { arg: N, collname: L, location: S },
  SubLink: { subLinkType: S, subLinkId: S, testexpr: N, operName: L, subselect: N, location: S },
  CaseExpr: { arg: N, args: L, defresult: N, location: S },
  CaseWhen: { expr: N, result: N, location: S },
  CoalesceExpr: { args: L, location: S },
  MinMaxExpr: { op: S, args: L, location: S },
  RowExpr: { args: L, row_format: S, colnames: L, location: S },
  A_ArrayExpr: { elements: L, list_start: S, list_end: S, location: S },
  A_Indirection: { arg: N, indirection: L },
  A_Indices: { is_slice: S, lidx: N, uidx: N },
  GroupingFunc: { args: L, location: S },
  SQLValueFunction: { op: S, typmod: S, location: S },
  Integer: { ival: S },
};

export const NODE_SPECS: Readonly<Record<string, NodeSpec>> = { ...QUERY, ...EXPRESSIONS };
