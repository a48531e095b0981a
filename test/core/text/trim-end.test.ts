import fc from 'fast-check';
import { coercePatchValue } from '../../../core/correction/patch';
import { parseUserNumber } from '../../../core/correction/user-number';
import { trimEndOf } from '../../../core/text/trim-end';

describe('trimEndOf (core/text/trim-end.ts)', () => {
  it('removes what the anchored character-class pattern removes', () => {
    const text = fc.array(fc.constantFrom('.', '?', '!', ',', ';', 'a', ' '), { maxLength: 20 }).map((c) => c.join(''));
    fc.assert(
      fc.property(text, (t) => {
        expect(trimEndOf(t, '.?!')).toBe(t.replace(/[.?!]+$/, ''));
        expect(trimEndOf(t, ',;')).toBe(t.replace(/[,;]+$/, ''));
      }),
      { numRuns: 1000 }
    );
  });

  // A synchronous test is not interrupted by jest's timeout, so a 5 s budget is asserted: the scan needs milliseconds,
  // the unanchored /[.?!]+$/ took 250 ms on 8 KB and 4 minutes on 200 KB.
  it('correction values with a 200 KB run of punctuation are read in one pass', () => {
    const started = performance.now();
    const run = '.'.repeat(200_000);
    expect(coercePatchValue(`${run}x`, { description: '', type: 'string', enumOptions: [] })).toBe(`${run}x`);
    expect(coercePatchValue(`to 42${run}`, { description: '', type: 'integer', enumOptions: [] })).toBe(42);
    expect(parseUserNumber(`${','.repeat(200_000)}x`, new Set())).toBeUndefined();
    expect(parseUserNumber(`42${';'.repeat(200_000)}`, new Set())).toBe(42);
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
