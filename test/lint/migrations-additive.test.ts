import { readMigrations } from '../../db/migrate';

/**
 * docs/operations.md ("Upgrades and rollbacks") promises that a build runs on a schema a newer build migrated, so a
 * rollback needs no down migration: migrations only add. A statement an older build could trip on (a table or
 * column it reads dropped or renamed, a column's type changed, a NOT NULL column its inserts do not fill) needs an
 * expand-then-contract plan over two releases instead, and this test says so.
 */
const FORBIDDEN: ReadonlyArray<[RegExp, string]> = [
  [/\bDROP\s+(TABLE|COLUMN|CONSTRAINT|VIEW|FUNCTION|TYPE|SCHEMA)\b/i, 'drops what an older build may read'],
  [/\bRENAME\b/i, 'renames what an older build reads'],
  [/\bALTER\s+COLUMN\s+\S+\s+(SET\s+DATA\s+)?TYPE\b/i, "changes a column's type"],
  [/\bSET\s+NOT\s+NULL\b/i, "makes a column an older build's inserts may leave empty required"],
  [
    /\bADD\s+COLUMN\b(?:(?!,\s*ADD\b)[^;])*\bNOT\s+NULL\b(?![^;,]*\b(DEFAULT|GENERATED)\b)/i,
    'adds a required column without a default',
  ],
];

const withoutComments = (sql: string) => sql.replace(/--[^\n]*/g, '');

describe('migrations only add', () => {
  it.each(readMigrations().map((m) => [m.name, m.sql] as const))('%s', (_name, sql) => {
    const found = FORBIDDEN.filter(([pattern]) => pattern.test(withoutComments(sql))).map(([, why]) => why);
    expect(found).toEqual([]);
  });

  it('finds what breaks an older build', () => {
    const breaking = [
      'ALTER TABLE t DROP COLUMN c;',
      'ALTER TABLE t RENAME TO u;',
      'ALTER TABLE t ADD COLUMN c text NOT NULL;',
    ];
    for (const sql of breaking) expect(FORBIDDEN.some(([p]) => p.test(sql))).toBe(true);
    expect(FORBIDDEN.some(([p]) => p.test("ALTER TABLE t ADD COLUMN c text NOT NULL DEFAULT 'x';"))).toBe(false);
  });
});
