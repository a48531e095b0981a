import {
  checkUserRegex,
  compileUserRegex,
  exceedsUserRegexText,
  matchesEntire,
  matchesFind,
  schemaPatternEngine,
  USER_REGEX_MAX_SIZE,
  USER_REGEX_MAX_TEXT,
  UserRegexError,
} from '../../../core/text/regex';

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
    ['\\u0041\\u00e9', 'Aé', true],
    ['[\\u0041-\\u005A]+', 'ABC', true],
    ['abc\\Z', 'xabc', true],
    ['(?m)^b\\z', 'a\nb', true],
    ['(?m)\\Aa', 'b\na', false],
    ['\\Qa.b\\E', 'a.b', true],
    ['\\Qa.b\\E', 'axb', false],
    ['\\Q\\u0041\\E', '\\u0041', true],
    ['\\p{L}+\\d', 'é1', true],
    ['(?<=order )\\d+', 'order 42', true],
    ['(?<!no )way', 'no way', false],
    ['\\0101', 'A', true],
    ['\\0101', '\b1', false],
    ['^\\0377\\07\\08$', '\u00ff\u0007\u00008', true],
    ['[]a]+', ']a', true],
    ['[^]a]', ']', false],
    ['[a\\[\\&]+', '[&', true],
    ['a&&b', 'a&&b', true],
  ])('%s finds in %p: %p', (pattern, text, expected) => {
    expect(matchesFind(compileUserRegex(pattern), text)).toBe(expected);
  });

  it('is case-insensitive on request', () => {
    expect(matchesFind(compileUserRegex('password', { ignoreCase: true }), 'My PASSWORD')).toBe(true);
    expect(matchesFind(compileUserRegex('password'), 'My PASSWORD')).toBe(false);
  });

  it('never leaves state between calls', () => {
    const re = compileUserRegex('a');
    expect([matchesFind(re, 'a'), matchesFind(re, 'a'), matchesFind(re, 'a')]).toEqual([true, true, true]);
    expect([matchesEntire(re, 'a'), matchesEntire(re, 'a')]).toEqual([true, true]);
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
    ['[a-z&&[^b]]', /uses a class intersection, &&, which this matcher reads differently from Java; spell/],
    ['^[a-z&&[^aeiou]]+$', /class intersection/],
    ['[a-c[x-z]]', /uses a class inside a class \(Java's union\).*\[a-cx-z\] for \[a-c\[x-z\]\]/],
    ['[[a]]', /class inside a class/],
    ['[[:alpha:]]', /uses a POSIX class, \[\[:alpha:\]\] \(Java reads it as a union\).*\\p\{Alpha\}/],
    ['(?x) [a &&b]', /class intersection/],
  ])('rejects %p with a human reason', (pattern, reason) => {
    expect(() => compileUserRegex(pattern)).toThrow(UserRegexError);
    expect(checkUserRegex(pattern)).toMatch(reason);
  });

  it('accepts valid patterns in checkUserRegex', () => {
    expect(checkUserRegex('(?i)\\b(order|status)\\b')).toBeNull();
  });

  it.each([
    '(?i)^\\s*(can i|how do i|how can i)\\s+(move|transfer)\\b',
    '^(yes|no)+$',
    '\\b[A-Z]{2,}-\\d+\\b',
    '(?<=order )\\d+',
    '(?<id>ORD-\\d+)',
  ])('accepts %p', (pattern) => {
    expect(checkUserRegex(pattern)).toBeNull();
  });
});

/** How long one call takes, in ms. */
function timed(run: () => boolean): { result: boolean; ms: number } {
  const start = process.hrtime.bigint();
  const result = run();
  return { result, ms: Number(process.hrtime.bigint() - start) / 1e6 };
}

describe('author patterns cannot freeze the engine', () => {
  // RegExp (the old matcher) took 2.4 to 5 s on each of these texts, and a few characters more doubled that: the
  // time grows exponentially with the length (the first five) or as its 4th power (the others). The star-height
  // check that stood before this matcher let all but (x+x+)+y and (a*)*b through.
  it.each([
    ['^(a|a)*$', 'a'.repeat(26) + '!'],
    ['(a|aa)+$', 'a'.repeat(35) + '!'],
    ['(\\w|\\d)+$', '1'.repeat(24) + '!'],
    ['(x+x+)+y', 'x'.repeat(25)],
    ['(a*)*b', 'a'.repeat(23)],
    ['\\d+\\d+\\d+\\d+x', '1'.repeat(120)],
    ['.*.*.*=.*', 'x'.repeat(300)],
  ])('%s on a crafted text: no match, in milliseconds', (pattern, attack) => {
    const re = compileUserRegex(pattern, { ignoreCase: true });
    const { result, ms } = timed(() => matchesFind(re, attack));
    expect(result).toBe(false);
    expect(ms).toBeLessThan(500);
  });

  it('(.*a){12} as a whole-text match (RegExp took 1.5 s on 27 characters) answers at once', () => {
    const re = compileUserRegex('(.*a){12}');
    expect(timed(() => matchesEntire(re, 'a'.repeat(26) + 'b')).ms).toBeLessThan(500);
    expect(matchesEntire(re, 'a'.repeat(12))).toBe(true);
  });

  it.each(['^(a|a)*$', '(\\w|\\d)+$', '\\s+$', '\\d+\\d+x', '(?<=a)(a|aa)+$'])(
    '%s on text of the longest searched length takes milliseconds',
    (pattern) => {
      const re = compileUserRegex(pattern, { ignoreCase: true });
      const attack = 'a1 '.repeat(USER_REGEX_MAX_TEXT / 3).padEnd(USER_REGEX_MAX_TEXT - 1, 'a') + '!';
      expect(attack).toHaveLength(USER_REGEX_MAX_TEXT);
      const { result, ms } = timed(() => matchesFind(re, attack));
      expect(result).toBe(false);
      expect(ms).toBeLessThan(500);
    }
  );

  it.each([
    [
      '(?i)^(?!.*ok).*password',
      /uses a lookahead, \(\?=…\) or \(\?!…\).*; rewrite it without: put what must follow into the pattern/,
    ],
    ['^(?=.*\\d)\\w+$', /uses a lookahead/],
    ['(\\w)\\1+', /uses a backreference, \\1 or \\k<name>.*; rewrite it without: spell the repeated text out/],
    ['(?<c>\\w)\\k<c>', /uses a backreference/],
    ['a*+b', /uses a possessive quantifier.*; drop the extra \+ \(a\*\+ as a\*\)/],
    ['x{2}+', /uses a possessive quantifier/],
    ['(?>a|ab)c', /uses an atomic group.*; write \(\?>…\) as \(\?:…\)/],
  ])('refuses %p, saying why and how to rewrite it', (pattern, reason) => {
    const message = checkUserRegex(pattern);
    expect(message).toMatch(reason);
    expect(message).toMatch(
      /, which needs a backtracking matcher, and one crafted message can keep such a matcher busy/
    );
    expect(() => compileUserRegex(pattern)).toThrow(UserRegexError);
  });

  it('refuses a pattern too large to match in bounded time, with its size', () => {
    expect(checkUserRegex('.{0,500}x')).toMatch(
      new RegExp(`is too large to match in bounded time \\(\\d+ steps, at most ${USER_REGEX_MAX_SIZE}\\)`)
    );
    expect(checkUserRegex('\\d{1,100}')).toBeNull();
  });

  it(`does not run a pattern on text longer than ${USER_REGEX_MAX_TEXT} characters: it does not match`, () => {
    const longest = 'x'.repeat(USER_REGEX_MAX_TEXT);
    const over = longest + 'x';
    expect(exceedsUserRegexText(longest)).toBe(false);
    expect(exceedsUserRegexText(over)).toBe(true);
    const re = compileUserRegex('x');
    expect([matchesFind(re, longest), matchesEntire(compileUserRegex('x+'), longest)]).toEqual([true, true]);
    expect([matchesFind(re, over), matchesEntire(compileUserRegex('x+'), over)]).toEqual([false, false]);
  });

  it('runs JSON Schema patterns for Ajv on the same matcher, with the same limit', () => {
    const rx = schemaPatternEngine('^ORD-\\d+$');
    expect([rx.test('ORD-12'), rx.test('ord-12'), rx.test('ORD-' + '1'.repeat(USER_REGEX_MAX_TEXT))]).toEqual([
      true,
      false,
      false,
    ]);
    expect(String(rx)).toBe('/^ORD-\\d+$/');
    expect(() => schemaPatternEngine('(\\w)\\1')).toThrow(/uses a backreference/);
    // ECMA-262, not Java: a `[` inside a class is a literal there, as RE2 reads it.
    const brackets = schemaPatternEngine('^[^[\\]]*$');
    expect([brackets.test('abc'), brackets.test('a[b')]).toEqual([true, false]);
    expect(() => compileUserRegex('^[^[\\]]*$')).toThrow(/class inside a class/);
  });
});
