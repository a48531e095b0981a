import fc from 'fast-check';
import { sql } from 'drizzle-orm';
import { foldedText, textMatches } from '../../db/search-collation';
import { createTestDatabase, type TestDatabase } from '../support/database';

/**
 * The console search's fold (db/search-collation.ts) as PostgreSQL computes it, against the same fold written in
 * JavaScript: NFKC, upper then lower case (full case mapping: ß is SS), ς as σ, ß as ss, i with a combining dot above (among its other marks) as i, NFKC. The
 * search folds the query on the database, never in JavaScript (whose Unicode is Node's, newer than the server's), so
 * the two are compared here on characters both know, chosen for where folds go wrong: ß ẞ, the Turkish İ ı, Greek
 * final sigma, combining marks in either order form, ligatures and full-width forms (％ ＿ among them), ǰ and ΐ,
 * whose upper case has no precomposed letter, the Kelvin and Ohm signs, ™.
 */
const ALPHABET = [
  ...'abiIsSzZ kK%_\\',
  ...'ßẞİıσςΣΟΔéÉèöÖçÇşŞğĞǰJΐΪΰ',
  ...'\u0301\u0300\u0308\u0307\u030c\u0327',
  ...'ﬁﬀﬆſŉＡａＺ１％＿﹪™℃ＫΩÅǅǄǆ①',
];

/** The fold in JavaScript: what foldedText has PostgreSQL compute. */
const jsFold = (text: string) =>
  text
    .normalize('NFKC')
    .toUpperCase()
    .toLowerCase()
    .replaceAll('\u03c2', '\u03c3')
    .replaceAll('\u00df', 'ss')
    .replace(/i([\u0300-\u036f]*?)\u0307/g, 'i$1')
    .normalize('NFKC');

const text = (maxLength: number) => fc.string({ unit: fc.constantFrom(...ALPHABET), maxLength });

/** How a person may type a word the text holds: another case, another normalization form. */
const VARIANTS: ((word: string) => string)[] = [
  (w) => w,
  (w) => w.toUpperCase(),
  (w) => w.toLowerCase(),
  (w) => w.normalize('NFD'),
  (w) => w.normalize('NFC'),
  (w) => w.normalize('NFKD'),
  (w) => w.toUpperCase().normalize('NFD'),
];

describe('console search fold: PostgreSQL and JavaScript agree', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase();
  });
  afterAll(async () => tdb.drop());

  const sqlFold = async (value: string) =>
    (await tdb.pool.query<{ f: string }>(`SELECT ${foldedText('$1::text')} AS f`, [value])).rows[0]!.f;
  const matches = async (stored: string, query: string) =>
    (await tdb.db.execute<{ m: boolean }>(sql`SELECT ${textMatches(sql`${stored}::text`, query)} AS m`)).rows[0]!.m;

  it('folds ß, İ, ς and both normalization forms as the JavaScript fold does', async () => {
    expect(await sqlFold('Straße İSTANBUL ΟΔΟΣ Cafe\u0301 ＡＢＣ ﬁ')).toBe('strasse istanbul οδοσ café abc fi');
    await fc.assert(
      fc.asyncProperty(text(12), async (value) => expect(await sqlFold(value)).toBe(jsFold(value))),
      { numRuns: 300 }
    );
  });

  it('finds a word of a text by the word in any case and normalization form', async () => {
    const wordsAndVariant = fc.record({
      words: fc.array(text(6), { minLength: 1, maxLength: 4 }),
      pick: fc.nat(),
      variant: fc.constantFrom(...VARIANTS),
    });
    await fc.assert(
      fc.asyncProperty(wordsAndVariant, async ({ words, pick, variant }) => {
        const query = variant(words[pick % words.length]!);
        expect(await matches(`said: ${words.join(' ')} .`, query)).toBe(true);
      }),
      { numRuns: 300 }
    );
  });
});
