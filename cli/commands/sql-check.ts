import { createInterface } from 'node:readline';
import type { CliCommand, CliIo } from '../command';
import { parseCommandArgs, usageError } from '../command';
import { loadSqlParser } from '../../activities/tools/sql/parser';
import { checkReadOnlySql, parseFunctionRef, type SqlGuardrailPolicy } from '../../core/sql';
import { outJson } from '../json-line';

const USAGE = [
  'convengine sql-check [--allow-function NAME]... [--block-function NAME]... [--block-keyword WORD]...',
  '',
  'Reads SQL from stdin, one statement per line, and prints one JSON line per non-empty input line:',
  '  {"sql": "...", "allowed": true|false, "reason": "..."}',
  'The options add ce_mcp_sql_guardrail rules (ALLOW_FUNCTION, BLOCK_FUNCTION, BLOCK_KEYWORD).',
  "Statements are parsed with PostgreSQL's own grammar and may read schema business only.",
].join('\n');

const OPTIONS = ['allow-function', 'block-function', 'block-keyword'];

function policyFrom(options: Map<string, string[]>): SqlGuardrailPolicy {
  return {
    allowFunctions: (options.get('allow-function') ?? []).map(parseFunctionRef),
    blockFunctions: (options.get('block-function') ?? []).map(parseFunctionRef),
    blockKeywords: (options.get('block-keyword') ?? []).map((w) => w.trim().toLowerCase()),
  };
}

async function checkLines(io: CliIo, policy: SqlGuardrailPolicy): Promise<void> {
  const parser = await loadSqlParser();
  const lines = createInterface({ input: io.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    const verdict = checkReadOnlySql(line, parser, policy);
    outJson(io, { sql: line, allowed: verdict.allowed, reason: verdict.reason });
  }
}

export const sqlCheckCommand: CliCommand = {
  usage: USAGE,
  async run(args, io) {
    const parsed = parseCommandArgs('sql-check', args, { values: OPTIONS, repeatable: OPTIONS, positional: false });
    if (typeof parsed === 'string') return usageError(io, parsed, USAGE);
    const blank = [...parsed.options].find(([, values]) => values.some((v) => v.trim() === ''));
    if (blank) return usageError(io, `--${blank[0]} needs a value`, USAGE);
    await checkLines(io, policyFrom(parsed.options));
    return 0;
  },
};
