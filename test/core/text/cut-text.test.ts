import fc from 'fast-check';
import { cutText } from '../../../core/text/cut-text';

const MONEY = '\u{1F4B0}';
const HALF_PAIR = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Well-formed text with astral characters (two units each) among one-unit ones, so cuts land in pairs. */
const text = fc
  .array(fc.oneof(fc.string({ unit: 'binary', maxLength: 4 }), fc.constantFrom(MONEY, '😀', '𝔸', 'é')), {
    maxLength: 40,
  })
  .map((parts) => parts.join(''));

describe('cutText (core/text/cut-text.ts)', () => {
  it('cuts before a surrogate pair rather than inside it', () => {
    expect(cutText(`ab${MONEY}c`, 3)).toBe('ab');
    expect(cutText(`ab${MONEY}c`, 4)).toBe(`ab${MONEY}`);
    expect(cutText(`ab${MONEY}c`, 2)).toBe('ab');
    expect(cutText(MONEY.repeat(3), 1)).toBe('');
  });

  it('leaves text within the limit as it is, and cuts to nothing at 0 or below', () => {
    const short = `hi ${MONEY}`;
    expect(cutText(short, short.length)).toBe(short);
    expect(cutText(short, 100)).toBe(short);
    expect(cutText(short, 0)).toBe('');
    expect(cutText(short, -3)).toBe('');
  });

  it('is a prefix of at most max units, at most one unit short, and never ends in half a pair', () => {
    fc.assert(
      fc.property(text, fc.nat({ max: 100 }), (input, max) => {
        const cut = cutText(input, max);
        expect(input.startsWith(cut)).toBe(true);
        expect(cut.length).toBeLessThanOrEqual(max);
        expect(cut.length).toBeGreaterThanOrEqual(Math.min(input.length, max) - 1);
        expect(cut).not.toMatch(HALF_PAIR);
      }),
      { numRuns: 500 }
    );
  });
});
