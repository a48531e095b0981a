import {
  mostSpecificPerKey,
  pickMostSpecific,
  rankByScope,
  scopeMatches,
  scopeSpecificity,
  scopeValueMatches,
} from '../../../core/config/scope';

const row = (intentCode: string | null, stateCode: string | null, id = 0) => ({ intentCode, stateCode, id });

describe('scope matching (D11)', () => {
  it.each([
    ['LOAN', 'loan', true],
    [' loan ', 'LOAN', true],
    ['ANY', 'LOAN', true],
    ['any', 'whatever', true],
    ['FAQ', 'LOAN', false],
    ['', 'LOAN', false],
    ['   ', 'LOAN', false],
    [null, 'LOAN', false],
    ['UNKNOWN', 'UNKNOWN', true],
    ['UNKNOWN', 'LOAN', false],
  ])('row value %p admits session value %p: %p', (rowValue, sessionValue, expected) => {
    expect(scopeValueMatches(rowValue, sessionValue)).toBe(expected);
  });

  it('needs both intent and state to match', () => {
    expect(scopeMatches(row('LOAN', 'IDLE'), 'LOAN', 'IDLE')).toBe(true);
    expect(scopeMatches(row('LOAN', 'IDLE'), 'LOAN', 'DONE')).toBe(false);
    expect(scopeMatches(row('ANY', 'ANY'), 'X', 'Y')).toBe(true);
    expect(scopeMatches(row('LOAN', null), 'LOAN', 'IDLE')).toBe(false);
  });

  it.each([
    ['LOAN', 'IDLE', 3],
    ['LOAN', 'ANY', 2],
    ['ANY', 'IDLE', 1],
    ['ANY', 'ANY', 0],
    ['FAQ', 'IDLE', -1],
  ])('specificity of (%s, %s) in (LOAN, IDLE) is %d', (intent, state, expected) => {
    expect(scopeSpecificity(row(intent, state), 'LOAN', 'IDLE')).toBe(expected);
  });

  it('picks the most specific row, breaking ties with the callback', () => {
    const rows = [
      row('ANY', 'ANY', 1001),
      row('LOAN', 'ANY', 1003),
      row('LOAN', 'GATE', 1002),
      row('LOAN', 'ANY', 1004),
    ];
    const higherIdWins = (a: { id: number }, b: { id: number }) => b.id - a.id;
    expect(pickMostSpecific(rows, 'LOAN', 'GATE', higherIdWins)?.id).toBe(1002);
    expect(pickMostSpecific(rows, 'LOAN', 'CONFIRMATION', higherIdWins)?.id).toBe(1004);
    expect(pickMostSpecific(rows, 'LOAN', 'CONFIRMATION')?.id).toBe(1003);
    expect(pickMostSpecific(rows, 'FAQ', 'IDLE')?.id).toBe(1001);
    expect(pickMostSpecific([row('FAQ', 'IDLE')], 'LOAN', 'IDLE')).toBeUndefined();
    expect(rankByScope(rows, 'LOAN', 'GATE', higherIdWins).map((r) => r.id)).toEqual([1002, 1004, 1003, 1001]);
  });

  it('keeps the most specific row per key', () => {
    const rows = [
      { ...row('ANY', 'ANY'), code: 'a', tag: 'generic' },
      { ...row('LOAN', 'IDLE'), code: 'a', tag: 'specific' },
      { ...row('ANY', 'IDLE'), code: 'b', tag: 'b' },
      { ...row('FAQ', 'IDLE'), code: 'c', tag: 'other scope' },
    ];
    const winners = mostSpecificPerKey(rows, (r) => r.code, 'LOAN', 'IDLE');
    expect(winners.map((r) => r.tag).sort()).toEqual(['b', 'specific']);
  });
});
