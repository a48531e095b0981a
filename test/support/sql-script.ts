/**
 * Splits SQL text into statements at top-level semicolons, keeping quoted literals, quoted
 * identifiers, dollar-quoted bodies and comments intact (seed prompts contain semicolons).
 * Comment-only and blank pieces are dropped. For test fixtures, not a general SQL parser.
 */
export function splitSqlStatements(text: string): string[] {
  const statements: string[] = [];
  let current = '';
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    const skip = quotedLength(rest);
    if (skip > 0) {
      current += rest.slice(0, skip);
      i += skip;
      continue;
    }
    const ch = text[i] as string;
    if (ch === ';') {
      statements.push(current);
      current = '';
    } else current += ch;
    i += 1;
  }
  statements.push(current);
  return statements.map((s) => s.trim()).filter((s) => stripComments(s).trim() !== '');
}

function quotedLength(rest: string): number {
  if (rest.startsWith('--')) return lengthThrough(rest, '\n', 2);
  if (rest.startsWith('/*')) return lengthThrough(rest, '*/', 2);
  if (rest.startsWith("'")) return literalLength(rest, "'");
  if (rest.startsWith('"')) return literalLength(rest, '"');
  const dollar = /^\$[A-Za-z_]*\$/.exec(rest);
  if (dollar) return lengthThrough(rest, dollar[0], dollar[0].length);
  return 0;
}

function lengthThrough(rest: string, end: string, from: number): number {
  const at = rest.indexOf(end, from);
  return at === -1 ? rest.length : at + end.length;
}

/** A '…' or "…" token, doubled quotes being escapes. */
function literalLength(rest: string, quote: string): number {
  let i = 1;
  while (i < rest.length) {
    if (rest[i] === quote) {
      if (rest[i + 1] === quote) i += 2;
      else return i + 1;
    } else i += 1;
  }
  return rest.length;
}

export function stripComments(sql: string): string {
  return sql.replace(/--[^\n]*/g, '').replace(/\/\*[\s\S]*?\*\//g, '');
}

const CE_STATEMENT = /^\s*(INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(ce_[a-z_]+)/i;

/**
 * The SQL statements of a prose document (a seed guide) that write one of our ce_* tables: each
 * starts at a line beginning with INSERT INTO / UPDATE / DELETE FROM ce_… and ends at its `;`.
 */
export function ceStatementsInText(text: string): { table: string; sql: string }[] {
  const lines = text.split('\n');
  const found: { table: string; sql: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = CE_STATEMENT.exec(lines[i] as string);
    if (!m) continue;
    const [statement] = splitSqlStatements(lines.slice(i).join('\n'));
    if (statement) found.push({ table: (m[2] as string).toLowerCase(), sql: statement });
  }
  return found;
}
