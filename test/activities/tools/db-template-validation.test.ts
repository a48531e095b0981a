import { toolSqlChecker } from '../../../activities/tools/sql/guard';
import { loadSqlParser } from '../../../activities/tools/sql/parser';
import { formatViolation, type ConfigRows } from '../../../core/config/types';
import type { McpDbToolRow } from '../../../core/config/tool-rows';
import { validateConfig } from '../../../core/config/validate';
import type { Json } from '../../../core/json';
import { MAX_IDENTIFIER_EXPANSIONS } from '../../../core/mcp/db-identifiers';
import type { ToolSqlCheck } from '../../../core/config/validation/context';
import { objectSchema } from '../../../db/seed/builders';
import { validBaseConfig } from '../../support/config-fixtures';

/**
 * A sql_template with `${identifier}` placeholders goes through the SQL guardrail at load as the tool runs it:
 * expanded with each combination of its allowed identifiers (the raw `${…}` is not SQL the parser takes).
 */
let checkToolSql: ToolSqlCheck;
beforeAll(async () => {
  checkToolSql = toolSqlChecker(await loadSqlParser());
});

function withTemplate(sqlTemplate: string, allowedIdentifiers: Json | null, extraArgs: string[]): ConfigRows {
  const rows = validBaseConfig();
  const row = rows.mcpDbTools[0] as McpDbToolRow;
  row.sqlTemplate = sqlTemplate;
  row.allowedIdentifiers = allowedIdentifiers;
  const props = Object.fromEntries(['customer_id', ...extraArgs].map((name) => [name, { type: 'string' }]));
  row.paramSchema = objectSchema(props);
  return rows;
}

const violations = (rows: ConfigRows) =>
  validateConfig(rows, undefined, { checkToolSql }).violations.map(formatViolation);

describe('config validation: sql_template with ${identifier} placeholders', () => {
  it('loads a template whose every allowed expansion passes the guardrail', () => {
    const rows = withTemplate(
      'select ${col} from ${tbl} where customer_id = :customer_id limit :limit',
      { tbl: ['loan', 'business.loan_archive'], col: ['status', 'amount'] },
      ['tbl', 'col']
    );
    expect(violations(rows)).toEqual([]);
  });

  it.each([
    [
      'a catalog table',
      'select status from ${tbl} limit :limit',
      { tbl: ['loan', 'pg_catalog.pg_authid'] },
      /catalog|schema/i,
    ],
    ['a denied function', 'select ${fn}(1) from loan limit :limit', { fn: ['abs', 'pg_sleep'] }, /PG_SLEEP/],
    [
      'session information',
      'select ${col} from loan limit :limit',
      { col: ['status', 'current_user'] },
      /CURRENT_USER/,
    ],
  ])('refuses a template one of whose allowed expansions reaches %s, naming the expansion', (_case, sql, ids, why) => {
    const names = Object.keys(ids);
    const [line] = violations(withTemplate(sql, ids, names));
    expect(line).toMatch(
      /^ce_mcp_db_tool\[1\]: sql_template is refused by the SQL guardrail: .* \(expanded as: select /
    );
    expect(line).toMatch(why);
  });

  it('checks the function allow-list only for a tool in safe_mode, as the tool runs it', () => {
    const rows = withTemplate('select md5(status) from ${tbl} limit :limit', { tbl: ['loan'] }, ['tbl']);
    expect(violations(rows)).toEqual([
      expect.stringMatching(/^ce_mcp_db_tool\[1\]: sql_template is refused by the SQL guardrail: .*MD5/),
    ]);
    (rows.mcpDbTools[0] as McpDbToolRow).safeMode = false;
    expect(violations(rows)).toEqual([]);
  });

  it('refuses allowed identifiers that combine into more statements than it checks', () => {
    const many = Array.from({ length: 17 }, (_v, i) => `c${i}`);
    const rows = withTemplate('select ${a}, ${b} from loan limit :limit', { a: many, b: many }, ['a', 'b']);
    expect(violations(rows)).toEqual([
      `ce_mcp_db_tool[1]: allowed_identifiers combine into 289 SQL statements; at most ${MAX_IDENTIFIER_EXPANSIONS} are checked (split the tool)`,
    ]);
  });
});
