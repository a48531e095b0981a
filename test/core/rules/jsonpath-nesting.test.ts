import fc from 'fast-check';
import { checkJsonPath, jsonPathValues } from '../../../core/rules/jsonpath';
import { MAX_JSONPATH_NESTING } from '../../../core/text/jsonpath/cursor';

const TOO_DEEP = /^invalid JSONPath "[^"]{1,210}": expression nested too deeply \(at most 64 levels/;
const deep = 20_000;

describe('JSONPath nesting (core/text/jsonpath)', () => {
  it.each([
    ['parentheses', `$[?(${'('.repeat(deep)}@.a${')'.repeat(deep)})]`],
    ['"!"', `$[?(${'!'.repeat(deep)}@.a)]`],
    ['lists', `$[?(@.a in ${'['.repeat(deep)}${']'.repeat(deep)})]`],
    ['filters inside filters', `$${'[?(@'.repeat(deep)}${')]'.repeat(deep)}`],
  ])('20,000 levels of %s are refused as too deep, with the path cut in the reason', (_what, path) => {
    expect(checkJsonPath(path)).toMatch(TOO_DEEP);
    expect(jsonPathValues(path, { a: 1 })).toEqual([]);
  });

  it(`accepts ${MAX_JSONPATH_NESTING} levels and refuses one more`, () => {
    const parens = (n: number) => `$[?(${'('.repeat(n)}@.a == 1${')'.repeat(n)})]`;
    expect(checkJsonPath(parens(MAX_JSONPATH_NESTING - 1))).toBeNull();
    expect(jsonPathValues(parens(MAX_JSONPATH_NESTING - 1), [{ a: 1 }, { a: 2 }])).toEqual([{ a: 1 }]);
    expect(checkJsonPath(parens(MAX_JSONPATH_NESTING))).toMatch(TOO_DEEP);
  });

  it('evaluates a chain of 20,000 && or || in order (the chain is not nesting)', () => {
    const and = `$[?(${Array(deep).fill('@.a').join(' && ')})]`;
    const or = `$[?(${Array(deep).fill('@.b').join(' || ')} || @.a == 2)]`;
    expect(checkJsonPath(and)).toBeNull();
    expect(jsonPathValues(and, [{ a: 1 }, { b: 1 }])).toEqual([{ a: 1 }]);
    expect(jsonPathValues(or, [{ a: 1 }, { a: 2 }, { b: 0 }])).toEqual([{ a: 2 }, { b: 0 }]);
  });

  it('&&, || and ! combine as the boolean operators they are, left to right', () => {
    const atom = fc.constantFrom('@.t', '@.f', '!@.t', '!@.f', '(@.t || @.f)', '!(@.t && @.f)');
    const value = (a: string): boolean => ({ '@.t': true, '@.f': false, '!@.t': false, '!@.f': true })[a] ?? true;
    fc.assert(
      fc.property(fc.array(fc.tuple(atom, fc.constantFrom('&&', '||')), { minLength: 1, maxLength: 12 }), (terms) => {
        const text = terms.map(([a, op], i) => (i === 0 ? a : `${op} ${a}`)).join(' ');
        // || binds looser than &&: the disjunction of the &&-groups.
        const groups: boolean[][] = [[]];
        terms.forEach(([a, op], i) => {
          if (i > 0 && op === '||') groups.push([]);
          groups[groups.length - 1]?.push(value(a));
        });
        const expected = groups.some((g) => g.every(Boolean));
        expect(jsonPathValues(`$[?(${text})]`, [{ t: true }])).toEqual(expected ? [{ t: true }] : []);
      }),
      { numRuns: 300 }
    );
  });
});
