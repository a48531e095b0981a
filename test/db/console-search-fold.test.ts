import { conversationsSaying, foundBy } from '../support/console-search';
import { createTestDatabase, type TestDatabase } from '../support/database';

/**
 * The console's text search (api/console/conversation-search.ts) folds what is stored and what is asked the same way
 * (db/search-collation.ts): one text in two Unicode forms, composed (NFC) or decomposed (NFD), or in a compatibility
 * form (full-width ＡＢＣ, the ligature ﬁ), is one text to it.
 */
describe('console conversation search folds Unicode forms', () => {
  let tdb: TestDatabase;
  const DECOMPOSED = '00000000-0000-4000-8000-00000000e001';
  const COMPOSED = '00000000-0000-4000-8000-00000000e002';
  const FULL_WIDTH = '00000000-0000-4000-8000-00000000e003';
  const PERCENT = '00000000-0000-4000-8000-00000000e004';

  beforeAll(async () => {
    tdb = await createTestDatabase();
    const said = [
      [DECOMPOSED, 'un Cafe\u0301 au lait', { type: 'TEXT', value: 'Noted.' }],
      [COMPOSED, 'Cr\u00e8me br\u00fbl\u00e9e', { type: 'TEXT', value: 'Noted.' }],
      [FULL_WIDTH, 'hello', { type: 'TEXT', value: 'Ｏｒｄｅｒ ＡＢＣ-１２３ is on its way' }],
      [PERCENT, 'is it 50% off', { type: 'TEXT', value: 'Noted.' }],
    ] as const;
    await conversationsSaying(tdb, said);
  });
  afterAll(async () => tdb.drop());

  const found = (q: string) => foundBy(tdb, q);

  it('finds text stored decomposed by a search typed composed, and the other way round', async () => {
    expect(await found('CAF\u00c9 au')).toEqual([DECOMPOSED]);
    expect(await found('cre\u0300me bru\u0302le\u0301e')).toEqual([COMPOSED]);
    expect(await found('br\u00fbl\u00e9e')).toEqual([COMPOSED]);
  });

  it('finds full-width text by its plain letters and digits, and the other way round', async () => {
    expect(await found('order abc-123')).toEqual([FULL_WIDTH]);
    expect(await found('ＯＲＤＥＲ')).toEqual([FULL_WIDTH]);
    expect(await found('ｈｅｌｌｏ')).toEqual([FULL_WIDTH]);
  });

  it('takes a full-width ％ or ＿ as the literal character it folds to, never a wildcard', async () => {
    expect(await found('50％')).toEqual([PERCENT]);
    expect(await found('％')).toEqual([PERCENT]);
    expect(await found('s＿it')).toEqual([]);
    expect(await found('0﹪ off')).toEqual([PERCENT]);
  });
});

/**
 * Case is folded fully and the same for every language (db/search-collation.ts): ß is ss (as its upper case SS), the
 * Turkish İ is i (not i with a combining dot, which lower-casing makes of it), and a final ς is σ.
 */
describe('console conversation search folds case fully', () => {
  let tdb: TestDatabase;
  const STRASSE = '00000000-0000-4000-8000-00000000f001';
  const MASSE = '00000000-0000-4000-8000-00000000f002';
  const ISTANBUL = '00000000-0000-4000-8000-00000000f003';
  const IZMIR = '00000000-0000-4000-8000-00000000f004';
  const GREEK = '00000000-0000-4000-8000-00000000f005';

  beforeAll(async () => {
    tdb = await createTestDatabase();
    await conversationsSaying(tdb, [
      [STRASSE, 'wo ist die Straße', 'Noted.'],
      [MASSE, 'IN GROSSEN MASSEN', 'Noted.'],
      [ISTANBUL, 'İSTANBUL havalimanı', 'Noted.'],
      [IZMIR, 'izmir otogarı', 'Noted.'],
      [GREEK, 'ΟΔΟΣ ΑΘΗΝΑΣ', 'Noted.'],
    ]);
  });
  afterAll(async () => tdb.drop());

  const found = (q: string) => foundBy(tdb, q);

  it('finds ß by ss and SS, and ss by ß and ẞ', async () => {
    expect(await found('STRASSE')).toEqual([STRASSE]);
    expect(await found('strasse')).toEqual([STRASSE]);
    expect(await found('großen maßen')).toEqual([MASSE]);
    expect(await found('GROẞEN')).toEqual([MASSE]);
  });

  it('finds the dotted capital İ by i and I, and i by İ', async () => {
    expect(await found('istanbul')).toEqual([ISTANBUL]);
    expect(await found('İstanbul')).toEqual([ISTANBUL]);
    expect(await found('İZMİR')).toEqual([IZMIR]);
    expect(await found('Izmir')).toEqual([IZMIR]);
  });

  it('finds a word-final Σ by σ and ς, wherever the search ends', async () => {
    expect(await found('οδοσ')).toEqual([GREEK]);
    expect(await found('οδος αθ')).toEqual([GREEK]);
    expect(await found('ΑΘΗΝΑΣ')).toEqual([GREEK]);
    expect(await found('ΟΣ')).toEqual([GREEK]);
  });
});
