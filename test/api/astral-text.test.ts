import { seedPacks } from '../../db/seed';
import { ApiHarness, type ApiJson } from '../support/api-harness';

/**
 * Characters past U+FFFF take two UTF-16 units (a surrogate pair), and a cut between the two leaves half of
 * one, which is no text: a session summary cut so had PostgreSQL refuse the turn's audit batch (500), a header
 * of the demo model encoded from a cut message threw URIError (503, "It can be retried", six times over). The
 * outsider's messages, on the defaults of `convengine start`: every seed pack and the keyless demo model.
 */
const MONEY = '\u{1F4B0}';
const HALF_OR_REPLACED = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|\uFFFD/;

describe('messages of astral characters (surrogate pairs) on the embedded defaults', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await ApiHarness.start({ demoModel: true });
    await seedPacks(h.wf.mcp.deps.db, ['all']);
    await h.wf.mcp.base.store.refresh();
  });
  afterAll(async () => h?.stop());

  it.each([
    ['"xyzw " and 600 × U+1F4B0', `xyzw ${MONEY.repeat(600)}`],
    ['"hi " and 600 × U+1F4B0', `hi ${MONEY.repeat(600)}`],
    ['"hi " and 2047 × U+1F4B0 (8191 bytes)', `hi ${MONEY.repeat(2047)}`],
    ['"a" and 1000 × U+1F4B0', `a${MONEY.repeat(1000)}`],
  ])('%s is answered, its summary cut between characters', async (_name, message) => {
    const res = await h.request('POST', '/api/v1/conversation/message', { json: { message } });
    expect(res.status === 200 ? 200 : res.body).toBe(200);
    const id = res.json().conversationId as string;
    const stages = ((await h.request('GET', `/api/v1/conversation/audit/${id}`)).json() as ApiJson[]).map(
      (row) => row.stage as string
    );
    expect(stages).not.toContain('STEP_ERROR');
    expect(stages.at(-1)).toBe('STEP_EXIT');
    expect(stages).toContain('ENGINE_RETURN');
    const stored = await h.wf.mcp.base.conversation(id);
    const summary = (stored?.context['memory'] as { session_summary: string }).session_summary;
    expect(summary.length).toBeGreaterThan(0);
    expect(summary).not.toMatch(HALF_OR_REPLACED);
  });
});
