import fc from 'fast-check';
import { compileUserRegex } from '../../../core/text/regex';
import { UserRegexError } from '../../../core/text/user-regex-error';

function failure(pattern: string, dialect: 'java' | 'ecma'): unknown {
  try {
    compileUserRegex(pattern, { dialect });
    return null;
  } catch (err) {
    return err;
  }
}

// Pieces of Java and ECMAScript regex syntax, including the escapes and class syntax the translation reads.
const piece = fc.constantFrom(
  '\\',
  'a',
  '[',
  ']',
  '(',
  ')',
  '?',
  '*',
  '+',
  '{',
  '}',
  '^',
  '$',
  '.',
  '|',
  '-',
  ':',
  '&&',
  'p',
  'P',
  '\\p{L}',
  '\\h',
  '\\V',
  '\\Q',
  '\\E',
  '\\R',
  '(?i)',
  '(?<n>',
  '{2}',
  '\\d',
  '\\\\',
  'L'
);

describe('user regex failures are UserRegexError (core/text/regex.ts)', () => {
  it.each(['\\', 'a\\', '[a\\', '(?i)\\', '[\\'])(
    '%j (a trailing backslash) is refused as such in both dialects',
    (p) => {
      for (const dialect of ['java', 'ecma'] as const) {
        const err = failure(p, dialect);
        expect(err).toBeInstanceOf(UserRegexError);
        expect((err as Error).message).toContain('trailing backslash');
      }
    }
  );

  it('any pattern either compiles or is refused with a UserRegexError, never an internal error', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 10 }), fc.constantFrom('java', 'ecma' as const), (pieces, dialect) => {
        const err = failure(pieces.join(''), dialect as 'java' | 'ecma');
        if (err !== null) expect(err).toBeInstanceOf(UserRegexError);
      }),
      { numRuns: 3000 }
    );
  });
});
