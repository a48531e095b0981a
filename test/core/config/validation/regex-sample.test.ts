import { regexSample } from '../../../../core/config/validation/regex-sample';
import { compileUserRegex, matchesFind } from '../../../../core/text/regex';

describe('regexSample: a text a REGEX rule matches, for the rule-cycle check to try', () => {
  it.each([
    ['^\\d+$', '1'],
    ['[0-9]{2,}', '00'],
    ['(?i)\\b(reset|restart)\\b', 'reset'],
    ['a(?:b|c)*d', 'abd'],
    ['(?<n>x)y', 'xy'],
    ['order\\s+#?\\d{3,5}', 'order #111'],
    ['(?i)^\\s*(cancel|stop)[.!]?\\s*$', ' cancel. '],
    ['\\p{L}+', 'a'],
  ])('%p gives %p, which it matches', (pattern, sample) => {
    expect(regexSample(pattern)).toBe(sample);
    expect(matchesFind(compileUserRegex(pattern, { ignoreCase: true }), sample)).toBe(true);
  });

  it.each(['(?=a)b', '(?<=a)b', '[^a]', '\\P{L}', '(a)\\1', 'a)b'])('gives no guess for %p', (pattern) => {
    expect(regexSample(pattern)).toBeNull();
  });
});
