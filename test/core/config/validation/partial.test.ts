import { emptyConfigRows } from '../../../../core/config/rows';
import { formatViolation, type ConfigRows } from '../../../../core/config/types';
import { validateConfig } from '../../../../core/config/validate';
import { validBaseConfig } from '../../../support/config-fixtures';

/** Only the tables named, the others emptied: a config-as-code tree with only their files. */
function only(...tables: (keyof ConfigRows)[]): { rows: ConfigRows; absentTables: (keyof ConfigRows)[] } {
  const full = validBaseConfig();
  const rows = emptyConfigRows();
  for (const t of tables) (rows as unknown as Record<string, unknown>)[t] = full[t];
  const absentTables = (Object.keys(rows) as (keyof ConfigRows)[]).filter((t) => !tables.includes(t));
  return { rows, absentTables };
}

const lines = (rows: ConfigRows, absentTables: (keyof ConfigRows)[] = []) => {
  const result = validateConfig(rows, undefined, { absentTables });
  return [...result.violations, ...result.warnings].map(formatViolation);
};

describe('validating part of the config (ValidationOptions.absentTables)', () => {
  const cuts: (keyof ConfigRows)[][] = [
    ['responses'],
    ['rules', 'responses'],
    ['mcpTools'],
    ['mcpTools', 'mcpDbTools'],
    ['promptTemplates', 'verboses'],
    ['semanticMappings', 'semanticJoinPaths'],
    ['intents', 'responses'],
    ['classifiers', 'responses'],
  ];
  it.each(cuts.map((tables) => [tables.join(' + '), tables] as const))(
    'finds nothing wrong with a valid config cut to %s',
    (_name, tables) => {
      const { rows, absentTables } = only(...tables);
      expect(lines(rows, absentTables)).toEqual([]);
    }
  );

  it('where the same rows, taken for the whole config, would be refused for rows the absent tables hold', () => {
    const { rows } = only('responses');
    expect(lines(rows)).toEqual(expect.arrayContaining([expect.stringMatching(/not defined in ce_intent/)]));
  });

  it('checks what the given tables hold, and the tool rows of a tree without ce_mcp_tool on their own', () => {
    const { rows, absentTables } = only('responses', 'mcpDbTools');
    const [response] = rows.responses;
    const [db] = rows.mcpDbTools;
    if (!response || !db) throw new Error('fixture rows missing');
    response.stateCode = ' ';
    db.maxRows = 0;
    expect(lines(rows, absentTables)).toEqual([
      'ce_response[1]: state_code is null/blank',
      'ce_mcp_db_tool[1]: max_rows must be a positive integer (got 0)',
    ]);
  });
});
