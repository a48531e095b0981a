export { checkReadOnlySql, type SqlCheckOptions, type SqlVerdict, type SqlVerdictCode } from './guardrail';
export {
  BUILT_IN_ALLOWED_FUNCTIONS,
  EMPTY_SQL_POLICY,
  parseFunctionRef,
  sqlPolicyFromRows,
  type FunctionRef,
  type SqlGuardrailPolicy,
} from './functions';
export { bindNamedParams, toPositionalParams, SqlParamError, type BoundSql, type PositionalSql } from './params';
export { tokenizeSql, significantTokens, SqlLexError, type SqlToken, type SqlTokenKind } from './lexer';
