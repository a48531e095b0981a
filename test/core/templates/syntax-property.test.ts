import fc from 'fast-check';
import { isEngineError } from '../../../core/errors';
import { parseTemplate, parseVariablePath, type TemplatePart, type VariablePath } from '../../../core/templates/syntax';

/** The default-suffix pattern parseTemplate used to run on every placeholder; the reference for short inputs. */
const REGEX_DEFAULT_SUFFIX = /^([\s\S]*?)\s*\?:\s*(?:'([^']*)'|"([^"]*)")\s*$/;

function referenceParts(expression: string): { path: string; fallback?: string } {
  const m = REGEX_DEFAULT_SUFFIX.exec(expression);
  return m ? { path: m[1] as string, fallback: m[2] ?? m[3] } : { path: expression };
}

function outcome(parse: () => TemplatePart | VariablePath): unknown {
  try {
    return parse();
  } catch (err) {
    return isEngineError(err) ? err.message : String(err);
  }
}

/** What parseTemplate makes of `{{expression}}`: its one part, or the error message. */
function parsed(expression: string): unknown {
  return outcome(() => parseTemplate(`{{${expression}}}`)[0] as TemplatePart);
}

/** The same, with the default split off by the reference pattern and the rest read by parseVariablePath. */
function viaReference(expression: string): unknown {
  const template = `{{${expression}}}`;
  const { path, fallback } = referenceParts(expression);
  const variable = outcome(() => parseVariablePath(path, template));
  if (typeof variable === 'string') return variable;
  const part = { kind: 'variable', path: variable, raw: template, syntax: 'mustache' };
  return fallback === undefined ? part : { ...part, fallback };
}

// Pieces of default suffixes and their near misses; no `}` (it would close the placeholder).
const expressionPiece = fc.constantFrom(
  ' ',
  '\n',
  '\u00a0',
  '\t',
  '?',
  ':',
  "'",
  '"',
  'a',
  '.',
  '[0]',
  '?:',
  ' ?: ',
  "'x'",
  '"y"'
);

describe('template default suffix (core/templates/syntax.ts)', () => {
  it('splits `path ?: default` exactly as the pattern it replaces, on any short expression', () => {
    fc.assert(
      fc.property(fc.array(expressionPiece, { maxLength: 16 }), (pieces) => {
        const expression = pieces.join('');
        expect(parsed(expression)).toEqual(viaReference(expression));
      }),
      { numRuns: 2000 }
    );
  });

  it('reads well-formed defaults, with any spacing and either quote', () => {
    const space = fc.stringMatching(/^[ \t\n]{0,3}$/);
    fc.assert(
      fc.property(
        space,
        space,
        space,
        space,
        fc.boolean(),
        fc.stringMatching(/^[a-z ]{0,8}$/),
        (s1, s2, s3, s4, q, d) => {
          const quote = q ? "'" : '"';
          const part = parsed(`${s1}a.b${s2}?:${s3}${quote}${d}${quote}${s4}`);
          expect(part).toMatchObject({ kind: 'variable', path: { text: 'a.b' }, fallback: d });
        }
      ),
      { numRuns: 300 }
    );
  });

  // A synchronous test is not interrupted by jest's timeout, so a 5 s budget is asserted: the scan needs about 0.1 s
  // here, the quadratic pattern took over 7 minutes (64,000 spaces: 20 s).
  it('parses a placeholder holding a 200 KB run of spaces in one pass', () => {
    const started = performance.now();
    const spaces = ' '.repeat(200_000);
    expect(parseTemplate(`{{${spaces}a}}`)).toEqual([
      { kind: 'variable', path: { root: 'a', segments: [], text: 'a' }, raw: `{{${spaces}a}}`, syntax: 'mustache' },
    ]);
    expect(parseTemplate(`[[\${a${spaces}?:${spaces}'x'${spaces}}]]`)[0]).toMatchObject({ fallback: 'x' });
    expect(() => parseTemplate(`{{${spaces}?${spaces}}}`)).toThrow(/not a variable path/);
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
