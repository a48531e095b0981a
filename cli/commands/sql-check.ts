import { createInterface } from 'node:readline';
import type { CliCommand, CliIo } from '../command';
import { parseOptions } from '../command';
import { loadSqlParser } from '../../activities/tools/sql/parser';
import { checkReadOnlySql, parseFunctionRef, type SqlGuardrailPolicy } from '../../core/sql';

const USAGE = [
  'convengine sql-check [--allow-function NAME]... [--block-function NAME]... [--block-keyword WORD]...',
  '',
  'Reads SQL from stdin, one statement per line, and prints one JSON line per non-empty input line:',
  '  {"sql": "...", "allowed": true|false, "reason": "..."}',
  'The options add ce_mcp_sql_guardrail rules (ALLOW_FUNCTION, BLOCK_FUNCTION, BLOCK_KEYWORD).',
  "Statements are parsed with PostgreSQL's own grammar and may read schema business only.",
].join('\n');

const KNOWN_OPTIONS = new Set(['allow-function', 'block-function', 'block-keyword']);

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
    io.out(JSON.stringify({ sql: line, allowed: verdict.allowed, reason: verdict.reason }));
  }
}

export const sqlCheckCommand: CliCommand = {
  usage: USAGE,
  async run(args, io) {
    const { positional, options } = parseOptions(args);
    const unknown = [...options.keys()].filter((name) => !KNOWN_OPTIONS.has(name));
    if (unknown.length > 0 || positional.length > 0) {
      io.err(`sql-check: unexpected argument(s): ${[...unknown.map((u) => `--${u}`), ...positional].join(' ')}`);
      io.err(`Usage: ${USAGE}`);
      return 2;
    }
    for (const [name, values] of options) {
      if (values.some((v) => v === 'true' || v.trim() === '')) {
        io.err(`sql-check: --${name} needs a value`);
        return 2;
      }
    }
    await checkLines(io, policyFrom(options));
    return 0;
  },
};
