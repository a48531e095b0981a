import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  approvalDecisionProblem,
  DECISION_LIMITS,
  heldToolDecisionProblem,
  jsonBytes,
  namedApprovalProblem,
} from '../../../core/turn/operator-decision';

const code = (p: { code: string } | null) => p?.code ?? null;

/** One set of rules for a person's decision, whichever door it comes through (core/turn/operator-decision.ts). */
describe('operator decisions', () => {
  it.each([
    ['not an object', 'retry', 'INVALID_DECISION'],
    ['an unknown action', { action: 'drop' }, 'INVALID_DECISION'],
    ['markDone without a result', { action: 'markDone' }, 'RESULT_REQUIRED'],
    ['retry with a result', { action: 'retry', result: { id: 'LA-1' } }, 'RESULT_NOT_ALLOWED'],
    ['skip with a null result', { action: 'skip', result: null }, 'RESULT_NOT_ALLOWED'],
    ['fail with a result', { action: 'fail', result: 'x' }, 'RESULT_NOT_ALLOWED'],
    ['a reason that is no text', { action: 'skip', reason: 7 }, 'INVALID_DECISION'],
    ['a reason too long', { action: 'skip', reason: 'x'.repeat(DECISION_LIMITS.reasonChars + 1) }, 'REASON_TOO_LONG'],
    ['decidedBy too long', { action: 'skip', decidedBy: 'x'.repeat(201) }, 'DECIDED_BY_TOO_LONG'],
    ['an empty decidedBy', { action: 'skip', decidedBy: '' }, 'DECIDED_BY_BLANK'],
    ['a blank decidedBy', { action: 'skip', decidedBy: ' \t\u00a0' }, 'DECIDED_BY_BLANK'],
    ['an invisible decidedBy', { action: 'skip', decidedBy: '\u200b\u202e\u2060 \ufeff' }, 'DECIDED_BY_BLANK'],
    ['a negative callIndex', { action: 'retry', callIndex: -1 }, 'INVALID_CALL_INDEX'],
    ['a fractional callIndex', { action: 'retry', callIndex: 1.5 }, 'INVALID_CALL_INDEX'],
    ['a callIndex that is text', { action: 'retry', callIndex: '2' }, 'INVALID_CALL_INDEX'],
    [
      'a callIndex no call can have',
      { action: 'retry', callIndex: DECISION_LIMITS.callIndex + 1 },
      'INVALID_CALL_INDEX',
    ],
    ['a NUL in the result', { action: 'markDone', result: { id: 'LA\u0000' } }, 'INVALID_TEXT'],
    // A verified result says what happened upstream: null says nothing, nor do blank text, a number or a boolean.
    ['markDone with a null result', { action: 'markDone', result: null }, 'RESULT_REQUIRED'],
    ['markDone with a blank text result', { action: 'markDone', result: '  ' }, 'RESULT_INVALID'],
    ['markDone with a number as result', { action: 'markDone', result: 42 }, 'RESULT_INVALID'],
    ['markDone with true as result', { action: 'markDone', result: true }, 'RESULT_INVALID'],
  ])('refuses a held-tool decision with %s', (_what, input, expected) => {
    expect(code(heldToolDecisionProblem(input))).toBe(expected);
  });

  it('takes every action with its own fields, markDone with a JSON object, a list or a text body', () => {
    for (const action of ['retry', 'skip', 'fail']) {
      expect(heldToolDecisionProblem({ action, reason: 'r', decidedBy: 'me', callIndex: 0 })).toBeNull();
    }
    expect(heldToolDecisionProblem({ action: 'markDone', result: { id: 'LA-1' }, reason: null })).toBeNull();
    expect(heldToolDecisionProblem({ action: 'markDone', result: {} })).toBeNull();
    expect(heldToolDecisionProblem({ action: 'markDone', result: [{ id: 'LA-1' }] })).toBeNull();
    expect(heldToolDecisionProblem({ action: 'markDone', result: 'LA-1 accepted' })).toBeNull();
    const atLimit = 'x'.repeat(DECISION_LIMITS.reasonChars);
    expect(heldToolDecisionProblem({ action: 'skip', reason: atLimit })).toBeNull();
  });

  it('measures the result in UTF-8 bytes of JSON, not characters', () => {
    // Two bytes a character: well under the limit in characters, over it in bytes.
    const wide = 'é'.repeat(DECISION_LIMITS.resultBytes / 2);
    expect(wide.length).toBeLessThan(DECISION_LIMITS.resultBytes);
    expect(jsonBytes(wide)).toBe(DECISION_LIMITS.resultBytes + 2);
    expect(heldToolDecisionProblem({ action: 'markDone', result: wide })).toMatchObject({
      code: 'RESULT_TOO_LARGE',
      field: 'result',
      message: `result must be at most ${DECISION_LIMITS.resultBytes} bytes of JSON (got ${DECISION_LIMITS.resultBytes + 2}).`,
    });
    const fits = 'x'.repeat(DECISION_LIMITS.resultBytes - 2);
    expect(heldToolDecisionProblem({ action: 'markDone', result: fits })).toBeNull();
  });

  it('holds approvals to the same reason, decidedBy and callIndex limits; they carry no result', () => {
    expect(approvalDecisionProblem({ decision: 'approve', reason: 'ok', callIndex: 2 })).toBeNull();
    expect(code(approvalDecisionProblem({ decision: 'maybe' }))).toBe('INVALID_DECISION');
    const long = 'x'.repeat(DECISION_LIMITS.reasonChars + 1);
    expect(approvalDecisionProblem({ decision: 'reject', reason: long })).toMatchObject({
      code: 'REASON_TOO_LONG',
      field: 'reason',
    });
    expect(code(approvalDecisionProblem({ decision: 'approve', callIndex: -3 }))).toBe('INVALID_CALL_INDEX');
    expect(code(approvalDecisionProblem({ decision: 'approve', result: {} }))).toBe('RESULT_NOT_ALLOWED');
    expect(code(approvalDecisionProblem({ decision: 'approve', decidedBy: '\u0000' }))).toBe('INVALID_TEXT');
    // An approval recorded by no one: the update sent directly (runbook §5) took "", the API "   ".
    expect(code(approvalDecisionProblem({ decision: 'approve', decidedBy: '' }))).toBe('DECIDED_BY_BLANK');
    expect(code(namedApprovalProblem({ decision: 'approve', callIndex: 4, decidedBy: '   ' }))).toBe(
      'DECIDED_BY_BLANK'
    );
    expect(approvalDecisionProblem({ decision: 'approve', decidedBy: null })).toBeNull();
    // Only invisible characters name no one either; a name that has some (a joined emoji) names someone.
    expect(code(approvalDecisionProblem({ decision: 'approve', decidedBy: '\u200b\u202e' }))).toBe('DECIDED_BY_BLANK');
    expect(approvalDecisionProblem({ decision: 'approve', decidedBy: '\u{1F469}\u200d\u{1F4BB} ann' })).toBeNull();
  });

  it('counts characters as code points, as the docs and the API schema do: an emoji is one', () => {
    const emoji = (n: number) => '😀'.repeat(n);
    expect(approvalDecisionProblem({ decision: 'reject', reason: emoji(1500) })).toBeNull();
    expect(approvalDecisionProblem({ decision: 'reject', reason: emoji(DECISION_LIMITS.reasonChars) })).toBeNull();
    expect(
      approvalDecisionProblem({ decision: 'reject', reason: emoji(DECISION_LIMITS.reasonChars + 1) })
    ).toMatchObject({
      code: 'REASON_TOO_LONG',
      message: `reason must be at most ${DECISION_LIMITS.reasonChars} characters (got ${DECISION_LIMITS.reasonChars + 1}).`,
    });
    expect(heldToolDecisionProblem({ action: 'skip', decidedBy: emoji(DECISION_LIMITS.decidedByChars) })).toBeNull();
    expect(code(heldToolDecisionProblem({ action: 'skip', decidedBy: emoji(201) }))).toBe('DECIDED_BY_TOO_LONG');
  });

  it('has an approval through the API or the console name the call it decides', () => {
    expect(namedApprovalProblem({ decision: 'approve', callIndex: 1 })).toBeNull();
    expect(namedApprovalProblem({ decision: 'approve' })).toMatchObject({
      code: 'CALL_INDEX_REQUIRED',
      field: 'callIndex',
    });
    // Malformed first: the caller learns what is wrong with what they sent.
    expect(code(namedApprovalProblem({ decision: 'maybe' }))).toBe('INVALID_DECISION');
    // The update itself keeps callIndex optional (runbook §5, an API of an older release during a rollout).
    expect(approvalDecisionProblem({ decision: 'approve' })).toBeNull();
  });
});

describe('the runbook states the limits the turn enforces', () => {
  const runbook = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'runbook.md'), 'utf8');
  it.each([
    `at most ${DECISION_LIMITS.resultBytes} bytes as UTF-8 JSON`,
    `at most ${DECISION_LIMITS.reasonChars} characters`,
    `at most ${DECISION_LIMITS.decidedByChars} characters`,
  ])('says "%s"', (text) => {
    expect(runbook).toContain(text);
  });
});
