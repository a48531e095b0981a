import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { readIntentScores } from '../../../core/intent/agent-output';
import { allowedIntents } from '../../../core/intent/allowed';
import { compareCodePoints } from '../../../core/text/compare-code-points';
import { intentRow, snapshotOf } from '../../support/config-rows';

const ROOT = join(__dirname, '..', '..', '..');
/** Codes a locale collation orders otherwise: Estonian puts Z before T, Danish AA after Z, ICU's root `_` before S. */
const CODES = ['TRANSFER', 'ZAP', 'AAB', 'ORDER_STATUS', 'ORDERS', 'Ib', 'ia'];
const CODE_POINT_ORDER = ['AAB', 'Ib', 'ORDERS', 'ORDER_STATUS', 'TRANSFER', 'ZAP', 'ia'];

/** The intent orders core/ decides with, computed here. */
function intentOrders(): { allowed: string[]; scores: string[] } {
  const snapshot = snapshotOf({ intents: CODES.map((code) => intentRow(code, 5)) });
  const intentScores = Object.fromEntries(CODES.map((code) => [code, 0.5]));
  const allowed = new Set(CODES.map((code) => code.toUpperCase()));
  return {
    allowed: allowedIntents(snapshot).map((i) => i.code),
    scores: readIntentScores({ intentScores }, allowed).map((s) => s.intent),
  };
}

/** The same orders computed by a Node process whose locale is `lang`. */
function intentOrdersUnder(lang: string): unknown {
  const code = [
    `const { allowedIntents } = require('./core/intent/allowed');`,
    `const { readIntentScores } = require('./core/intent/agent-output');`,
    `const codes = ${JSON.stringify(CODES)};`,
    `const intents = codes.map((code) => ({ intentCode: code, description: '', priority: 5, enabled: true, llmHint: null }));`,
    `const allowed = allowedIntents({ rows: { intents } }).map((i) => i.code);`,
    `const scores = readIntentScores({ intentScores: Object.fromEntries(codes.map((c) => [c, 0.5])) },`,
    `  new Set(codes.map((c) => c.toUpperCase()))).map((s) => s.intent);`,
    `process.stdout.write(JSON.stringify({ allowed, scores }));`,
  ].join('\n');
  const env = { ...process.env, LANG: lang, LC_ALL: lang };
  return JSON.parse(
    execFileSync(process.execPath, ['--require', 'tsx/cjs', '-e', code], { cwd: ROOT, env, encoding: 'utf8' })
  );
}

describe('compareCodePoints', () => {
  it('orders by code point: upper case before lower, digits before letters, `_` after upper-case letters', () => {
    expect([...CODES].sort(compareCodePoints)).toEqual(CODE_POINT_ORDER);
    expect(['b', 'B', '_', '9', 'a'].sort(compareCodePoints)).toEqual(['9', 'B', '_', 'a', 'b']);
    expect(['ab', 'a', ''].sort(compareCodePoints)).toEqual(['', 'a', 'ab']);
    expect(compareCodePoints('same', 'same')).toBe(0);
  });

  it('puts a character above U+FFFF after U+E000..U+FFFF, where UTF-16 code units would not', () => {
    expect(['😀', '\uffff', '\ue000', 'z'].sort(compareCodePoints)).toEqual(['z', '\ue000', '\uffff', '😀']);
    expect(compareCodePoints('a😀', 'a\uff5e')).toBe(1);
  });

  it('orders ISO timestamps (config rows’ createdAt) by time', () => {
    const times = ['2026-01-02T00:00:00.000Z', '2025-12-31T23:59:59.999Z', '2026-01-01T10:00:00.000Z'];
    expect([...times].sort(compareCodePoints)).toEqual([times[1], times[2], times[0]]);
  });
});

// A tie broken by the host's locale went one way on one worker and another on the next (Estonian, Danish, Turkish).
describe('intent ties are broken by code point, whatever the host locale', () => {
  it('orders allowed intents and equal scores by code point', () => {
    expect(intentOrders()).toEqual({ allowed: CODE_POINT_ORDER, scores: CODE_POINT_ORDER });
  });

  it.each(['et_EE.UTF-8', 'da_DK.UTF-8', 'tr_TR.UTF-8', 'en_US.UTF-8'])('gives the same orders under %s', (lang) => {
    expect(intentOrdersUnder(lang)).toEqual(intentOrders());
  });
});
