import { spawn } from 'node:child_process';
import path from 'node:path';
import type { AwaitingApprovalTurn } from '../../api/turns/approval-queue';
import { printApprovals } from '../../cli/commands/sre-lists';
import { jsonLine } from '../../cli/json-line';

const BIN = path.join(__dirname, '..', '..', 'bin', 'convengine.js');

/**
 * Bidirectional controls, other invisible format characters (Cf, one above U+FFFF), DEL, C1, U+2028/9 and variation
 * selectors (one above U+FFFF).
 */
const HIDDEN = [
  ...'\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c',
  ...'\u200b\u200c\u200d\u2060\u00ad\ufeff\u{e0041}\u007f\u009b\u0085\u2028\u2029',
  ...'\ufe0f\u180b\u{e0150}',
];
// eslint-disable-next-line no-misleading-character-class -- each selector is matched alone
const ANY_HIDDEN = /[\u007f-\u009f\p{Cf}\u2028\u2029\u180b-\u180f\ufe00-\ufe0f\u{e0100}-\u{e01ef}]/u;
/** Text a user or a tool could send, every hidden character in it, and ordinary non-ASCII text that stays as it is. */
const TRICKY = `pay ${HIDDEN.join('x')} to "Zoë" 中文 😀 \u0007\n`;

function sqlCheck(stdin: string): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'sql-check'], {
      env: { ...process.env, CONVENGINE_USE_SOURCES: '1' },
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout }));
    child.stdin.end(stdin);
  });
}

describe('CLI JSON lines (--json) show bidirectional and invisible characters as \\u escapes', () => {
  it('keeps the JSON value and leaves no hidden character in the line', () => {
    const value = { [`key${HIDDEN[4]}`]: TRICKY, list: [...HIDDEN], n: 1, none: null };
    const line = jsonLine(value);
    expect(JSON.parse(line)).toEqual(value);
    expect(line).not.toMatch(ANY_HIDDEN);
    expect(line).not.toContain('\n');
    expect(line).toContain('\\u202e');
    expect(line).toContain('\\udb40\\udc41');
    expect(line).toContain('\\udb40\\udd50');
    expect(line).toContain('Zoë\\" 中文 😀');
  });

  it('sre approvals --json: a waiting call’s arguments print escaped and parse back unchanged', async () => {
    const turn = {
      workflowId: 'turn-x-1',
      runId: 'r',
      conversationId: null,
      turnNumber: 1,
      intent: `REFUND${HIDDEN[4]}`,
      state: null,
      configVersion: null,
      approval: { toolName: 'refund', args: { note: TRICKY } },
    } as unknown as AwaitingApprovalTurn;
    const out: string[] = [];
    const io = { out: (l: string) => out.push(l), err: () => undefined, stdin: process.stdin };
    const code = await printApprovals(io, { list: async () => ({ turns: [turn], next: null }) }, true);
    expect(code).toBe(0);
    expect(out).toHaveLength(1);
    expect(out[0]).not.toMatch(ANY_HIDDEN);
    expect(JSON.parse(out[0] as string)).toEqual(turn);
  });

  it('sql-check echoes a statement with a right-to-left override as \\u202e, the same string once parsed', async () => {
    const sql = `select '${HIDDEN.join('')}' as note`;
    const { code, stdout } = await sqlCheck(`${sql}\n`);
    expect(code).toBe(0);
    expect(stdout).not.toMatch(ANY_HIDDEN);
    expect((JSON.parse(stdout.trim()) as { sql: string }).sql).toBe(sql);
  });
});
