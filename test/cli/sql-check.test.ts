import { spawn } from 'node:child_process';
import path from 'node:path';

const BIN = path.join(__dirname, '..', '..', 'bin', 'convengine.js');

function run(args: string[], stdin: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'sql-check', ...args], {
      env: { ...process.env, CONVENGINE_USE_SOURCES: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

describe('convengine sql-check', () => {
  it('prints one JSON verdict per non-empty line, in input order, and exits 0', async () => {
    const input = [
      'select 1',
      '',
      'delete from t',
      "  select md5('a')  ",
      'select 1; select 2',
      'with x as (select 1) select * from x',
    ].join('\n');
    const { code, stdout } = await run([], `${input}\n`);
    expect(code).toBe(0);
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { sql: string; allowed: boolean; reason: string });
    expect(lines.map((l) => [l.sql, l.allowed])).toEqual([
      ['select 1', true],
      ['delete from t', false],
      ["  select md5('a')  ", false],
      ['select 1; select 2', false],
      ['with x as (select 1) select * from x', true],
    ]);
    expect(lines[1]?.reason).toContain('DELETE statements are not allowed');
    expect(lines[2]?.reason).toContain('MD5');
    expect(lines.every((l) => l.reason.length > 0)).toBe(true);
  });

  it('applies repeatable --allow-function / --block-function / --block-keyword options', async () => {
    const args = [
      '--allow-function',
      'md5',
      '--allow-function',
      'business.stock',
      '--block-function',
      'lower',
      '--block-keyword',
      'explain',
    ];
    const { code, stdout } = await run(
      args,
      "select md5('a')\nselect business.stock(1)\nselect lower('A')\nselect 1 as explain\n"
    );
    expect(code).toBe(0);
    const verdicts = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { allowed: boolean; reason: string });
    expect(verdicts.map((v) => v.allowed)).toEqual([true, true, false, false]);
    expect(verdicts[2]?.reason).toBe('SQL uses blocked function: LOWER.');
    expect(verdicts[3]?.reason).toBe('SQL contains blocked keyword: EXPLAIN.');
  });

  it('never lets --allow-function lift a function that changes the server', async () => {
    const calls = [
      'pg_log_standby_snapshot()',
      "pg_logical_slot_peek_changes('s', null, null)",
      'pg_stat_clear_snapshot()',
      "brin_summarize_new_values('i')",
      'pg_import_system_collations(1)',
    ];
    const args = calls.flatMap((c) => ['--allow-function', c.slice(0, c.indexOf('('))]);
    const { code, stdout } = await run(args, calls.map((c) => `select ${c}`).join('\n'));
    expect(code).toBe(0);
    const verdicts = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { allowed: boolean; reason: string });
    expect(verdicts).toHaveLength(calls.length);
    for (const v of verdicts)
      expect(v).toMatchObject({ allowed: false, reason: expect.stringMatching(/never allowed/) });
  });

  it('prints usage for --help and rejects unknown options', async () => {
    const help = await run(['--help'], '');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('convengine sql-check [--allow-function NAME]');
    const bad = await run(['--frobnicate', 'x'], 'select 1\n');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unexpected argument(s): --frobnicate');
  });
});
