import { checkUserRegex, compileUserRegex, matchesEntire, matchesFind, UserRegexError } from '../../../core/text/regex';

describe('compileUserRegex (Java-style patterns)', () => {
  it.each([
    ['(?i)\\bloan\\b', 'I need a LOAN now', true],
    ['\\bloan\\b', 'I need a LOAN now', false],
    ['(?i)^(hi|hello)\\b', 'Hello there', true],
    ['(?is)start.end', 'START\nEND', true],
    ['(?i)(?s)start.end', 'start\nend', true],
    ['(?m)^b$', 'a\nb\nc', true],
    ['(?x) a \\s b  # a then b', 'xx a b', true],
    ['(?x)[ ]x', 'a x', true],
    ['\\Aabc\\z', 'abc', true],
    ['\\Aabc\\z', 'xabc', false],
  ])('%s finds in %p: %p', (pattern, text, expected) => {
    expect(matchesFind(compileUserRegex(pattern), text)).toBe(expected);
  });

  it('is case-insensitive on request', () => {
    expect(matchesFind(compileUserRegex('password', { ignoreCase: true }), 'My PASSWORD')).toBe(true);
    expect(matchesFind(compileUserRegex('password'), 'My PASSWORD')).toBe(false);
  });

  it('never leaves state between calls (no g flag)', () => {
    const re = compileUserRegex('a');
    expect([matchesFind(re, 'a'), matchesFind(re, 'a'), matchesFind(re, 'a')]).toEqual([true, true, true]);
    expect(re.flags).not.toContain('g');
  });

  it('matchesEntire is Java matches()', () => {
    const re = compileUserRegex('(?i)yes|ok');
    expect(matchesEntire(re, 'OK')).toBe(true);
    expect(matchesEntire(re, 'ok then')).toBe(false);
  });

  it.each([
    ['(unclosed', /invalid regular expression "\(unclosed": .*/],
    ['a**+', /invalid regular expression/],
    ['(?q)abc', /unsupported inline flag \(\?q\)/],
    ['abc(?i)def', /inline flags are only supported at the start/],
  ])('rejects %p with a human reason', (pattern, reason) => {
    expect(() => compileUserRegex(pattern)).toThrow(UserRegexError);
    expect(checkUserRegex(pattern)).toMatch(reason);
  });

  it('accepts valid patterns in checkUserRegex', () => {
    expect(checkUserRegex('(?i)\\b(order|status)\\b')).toBeNull();
  });

  it.each(['h(a+)+$', '(x+x+)+y', '^(\\w+\\s?)*$', '(?i)^ORD-(\\d+)+x$', '(a*)*b'])(
    'refuses %p: a repetition inside a repetition can backtrack for seconds on one message',
    (pattern) => {
      expect(() => compileUserRegex(pattern)).not.toThrow();
      expect(checkUserRegex(pattern)).toMatch(/nests a repetition inside a repetition/);
    }
  );

  it.each([
    '(?i)^\\s*(can i|how do i|how can i)\\s+(move|transfer)\\b',
    '^(yes|no)+$',
    '\\b[A-Z]{2,}-\\d+\\b',
    '(?<=order )\\d+',
    '(?<id>ORD-\\d+)',
  ])('accepts %p (one level of repetition, or syntax the check leaves to the compiler)', (pattern) => {
    expect(checkUserRegex(pattern)).toBeNull();
  });
});
