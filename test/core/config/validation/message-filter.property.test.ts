import fc from 'fast-check';
import { MessageMatcher, regexPieces } from '../../../../core/config/validation/message-filter';
import { evaluateRuleMatch } from '../../../../core/rules/match';
import { ruleRow } from '../../../support/config-rows';

/**
 * regexPieces against the engine (RE2, Java syntax, case-insensitive as REGEX rules run): random patterns from a
 * grammar of literals, escapes, classes, groups, alternations and quantifiers, each with texts written to match it.
 * Every such text the engine finds the pattern in, if MessageMatcher reads it (printable ASCII), holds every piece
 * case-folded, and MessageMatcher runs the rule on it: a piece the text lacks would hide a match from the checks.
 */
interface Node {
  source: string;
  /** A text the node matches, choices drawn from `draw`. */
  sample: (draw: fc.GeneratorValue) => string;
}

const PLAIN_TEXT = /^[\x20-\x7e]*$/;
const fixed = (source: string, text: string): Node => ({ source, sample: () => text });
/** A letter's case is drawn: the engine matches REGEX rules case-insensitively. */
const anyCase = (text: string) => (draw: fc.GeneratorValue) =>
  draw(fc.boolean) ? text.toUpperCase() : text.toLowerCase();
const hex = (ch: string, width: number) => ch.charCodeAt(0).toString(16).padStart(width, '0');

const literal = fc
  .constantFrom(...'aAbBkKsSzZ019   #-_<>=!@~,:;\'"&%/{}'.split(''))
  .map((ch): Node => ({ source: ch, sample: anyCase(ch) }));
const escapedPunctuation = fc.constantFrom(...'.\\^$|?*+()[]{}-#<>'.split('')).map((ch) => fixed(`\\${ch}`, ch));
/** Escapes that spell one character by its code, of a letter or digit the next run may start with. */
const codeEscape = fc
  .tuple(fc.constantFrom(...'ABCabc19'.split('')), fc.integer({ min: 0, max: 4 }))
  .map(([ch, form]): Node => {
    const code = ch.charCodeAt(0);
    const sources = [
      `\\x${hex(ch, 2)}`,
      `\\x{${hex(ch, 1)}}`,
      `\\u${hex(ch, 4)}`,
      `\\0${code.toString(8)}`,
      `\\${code.toString(8).padStart(3, '0')}`,
    ];
    return { source: sources[form] as string, sample: anyCase(ch) };
  });
const classEscape = fc.constantFrom(
  fixed('\\d', '7'),
  fixed('\\D', 'x'),
  fixed('\\w', 'q'),
  fixed('\\s', ' '),
  fixed('\\h', ' '),
  fixed('\\pL', 'g'),
  fixed('\\p{L}', 'G'),
  fixed('\\p{Alpha}', 'b'),
  fixed('\\P{L}', '5'),
  fixed('\\b', ''),
  fixed('\\B', '')
);
const characterClass = fc.constantFrom(
  fixed('[a-z]', 'm'),
  fixed('[^0-9]', 'k'),
  fixed('[xyz]', 'y'),
  fixed('[\\]a]', ']'),
  fixed('.', '.')
);
const atom = fc.oneof(literal, escapedPunctuation, codeEscape, classEscape, characterClass);

const node: fc.Arbitrary<Node> = fc.letrec<{ node: Node }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    atom,
    fc.array(tie('node'), { minLength: 2, maxLength: 5 }).map((parts): Node => ({
      source: parts.map((p) => p.source).join(''),
      sample: (draw) => parts.map((p) => p.sample(draw)).join(''),
    })),
    fc
      .tuple(tie('node'), fc.constantFrom('(', '(?:', '(?i:', '(?-i:'))
      .map(([inner, open]): Node => ({ source: `${open}${inner.source})`, sample: inner.sample })),
    fc.tuple(tie('node'), tie('node')).map(([a, b]): Node => ({
      source: `${a.source}|${b.source}`,
      sample: (draw) => (draw(fc.boolean) ? a : b).sample(draw),
    })),
    fc
      .tuple(tie('node'), fc.constantFrom('*', '+', '?', '{2}', '{1,3}', '{0,}'), fc.boolean())
      .map(([inner, quantifier, lazy]): Node => {
        const [, least, most] = /^\{?(\d*),?(\d*)/.exec(quantifier) ?? [];
        const min = quantifier === '+' ? 1 : Number(least || 0);
        const max = quantifier === '?' ? 1 : Number(most || least || 3) || 3;
        return {
          source: `(?:${inner.source})${quantifier}${lazy ? '?' : ''}`,
          sample: (draw) => {
            const count = draw(fc.integer, { min, max: Math.max(min, max) });
            return Array.from({ length: count }, () => inner.sample(draw)).join('');
          },
        };
      })
  ),
})).node;

const pattern = fc
  .tuple(fc.constantFrom('', '', '(?i)', '(?x)', '(?X)', '(?s)', '(?-i)'), node)
  .map(([flags, body]): Node & fc.WithToStringMethod => ({
    source: flags + body.source,
    sample: body.sample,
    // A counterexample shows the pattern, not the sampler.
    [fc.toStringMethod]: () => JSON.stringify(flags + body.source),
  }));
const around = fc.string({ unit: fc.constantFrom('a', 'Z', ' ', '9', '.', '\n', 'é', 'K'), maxLength: 3 });

describe('regexPieces (core/config/validation/message-filter.ts)', () => {
  it('returns only pieces that every text the pattern is found in contains, case-folded', () => {
    fc.assert(
      fc.property(pattern, fc.gen(), around, around, ({ source, sample }, draw, before, after) => {
        const drawn = sample(draw);
        // In comments mode the spaces of the pattern are not part of it; a part of the text may match an
        // alternation the sampler did not see (x{a|b}y is `x{a` or `b}y`).
        const parts = [...drawn].flatMap((_, at) => [drawn.slice(at), drawn.slice(0, at)]);
        const texts = [drawn, drawn.replace(/ /g, ''), before + drawn + after, ...parts];
        const pieces = regexPieces(source) ?? [];
        const rule = ruleRow({ ruleType: 'REGEX', matchPattern: source, action: 'SET_STATE', actionValue: 'B' });
        const matcher = new MessageMatcher([rule], { evaluations: 0 });
        const matches = (text: string) => evaluateRuleMatch(rule, { userText: text, facts: {}, context: {} }).matched;
        for (const text of texts.filter(matches)) {
          expect(matcher.matching(text).has(rule)).toBe(true);
          // MessageMatcher runs every rule on other text (Unicode case folding: K, the Kelvin sign, is k).
          if (!PLAIN_TEXT.test(text)) continue;
          for (const piece of pieces) expect(text.toLowerCase()).toContain(piece.toLowerCase());
        }
      }),
      { numRuns: 3000 }
    );
  });

  it('takes an escape with its argument, so none of it is filed as literal text', () => {
    expect(regexPieces('\\x41BC')).toEqual(['BC']);
    expect(regexPieces('\\u0041BC')).toEqual(['BC']);
    expect(regexPieces('\\x{41}BC')).toEqual(['BC']);
    expect(regexPieces('\\0101BC')).toEqual(['BC']);
    expect(regexPieces('\\101BC')).toEqual(['BC']);
    expect(regexPieces('\\cAxyz')).toEqual(['xyz']);
    expect(regexPieces('\\k<nm>z')).toEqual(['z']);
    expect(regexPieces('a\\pLbc\\p{Lu}de')).toEqual(['a', 'bc', 'de']);
    expect(regexPieces('(?X)a b')).toBeNull();
    expect(regexPieces('x\\b<a|b>yz')).toBeNull();
    expect(regexPieces('xa{|b}yz')).toBeNull();
    expect(regexPieces('xa{2}yz\\d{1,3}w')).toEqual(['x', 'yz', 'w']);
  });
});
