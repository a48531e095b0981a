export {
  checkReadOnlySql,
  DEFAULT_BUSINESS_SCHEMAS,
  type SqlCheckOptions,
  type SqlParser,
  type SqlVerdict,
  type SqlVerdictCode,
} from './guardrail';
export {
  BUILT_IN_ALLOWED_FUNCTIONS,
  deniedClassOf,
  EMPTY_SQL_POLICY,
  parseFunctionRef,
  sqlPolicyFromRows,
  type FunctionRef,
  type SqlGuardrailPolicy,
} from './functions';
export { bindNamedParams, toPositionalParams, SqlParamError, type BoundSql, type PositionalSql } from './params';
export { tokenizeSql, significantTokens, SqlLexError, type SqlToken, type SqlTokenKind } from './lexer';
