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
