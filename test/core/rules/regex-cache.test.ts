import { compileUserRegex } from '../../../core/text/regex';
import { cachedUserRegex, findsUserRegex } from '../../../core/rules/regex-cache';
import type * as RegexModule from '../../../core/text/regex';

jest.mock('../../../core/text/regex', () => {
  const actual = jest.requireActual<typeof RegexModule>('../../../core/text/regex');
  return { ...actual, compileUserRegex: jest.fn(actual.compileUserRegex) };
});

const compiled = (pattern: string): number =>
  jest.mocked(compileUserRegex).mock.calls.filter(([p]) => p === pattern).length;

describe('the config pattern cache (core/rules/regex-cache.ts)', () => {
  it('keeps a pattern in use while more patterns than it holds pass through', () => {
    for (let i = 0; i < 2500; i++) {
      expect(findsUserRegex('\\bhot\\b', 'a hot day')).toBe(true);
      cachedUserRegex(`cold-${i}`);
    }
    expect(compiled('\\bhot\\b')).toBe(1);
    // The least recently used went: the first cold pattern is compiled again, the last is still held.
    cachedUserRegex('cold-0');
    cachedUserRegex('cold-2499');
    expect([compiled('cold-0'), compiled('cold-2499')]).toEqual([2, 1]);
  });

  it('caches a pattern that does not compile as never matching', () => {
    expect(cachedUserRegex('(unclosed')).toBeNull();
    expect(findsUserRegex('(unclosed', '(unclosed')).toBe(false);
    expect(compiled('(unclosed')).toBe(1);
  });
});
