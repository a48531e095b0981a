import { createPipelineActivities } from '../../activities/pipeline';
import { seedPacks } from '../../db/seed';
import { ApiHarness, type ApiJson } from '../support/api-harness';

/**
 * A bug in the engine's own code fails the same way on every attempt: its turn fails at once and is not
 * reported as one a retry can fix (a URIError from the engine's code was answered 503 "It can be retried",
 * after six attempts that each failed the same way).
 */
describe('a turn failed by a programming error', () => {
  let h: ApiHarness;
  let attempts = 0;
  beforeAll(async () => {
    h = await ApiHarness.start({
      demoModel: true,
      activities: (base, deps) => ({
        ...base,
        ...createPipelineActivities(deps, {
          Memory: async () => {
            attempts += 1;
            throw new TypeError("Cannot read properties of undefined (reading 'summary')");
          },
        }),
      }),
    });
    await seedPacks(h.wf.mcp.deps.db, ['faq']);
    await h.wf.mcp.base.store.refresh();
  });
  afterAll(async () => h?.stop());

  it('is answered 500, not retryable, after one attempt that leaves one STEP_ERROR and the failure row', async () => {
    const conversationId = crypto.randomUUID();
    const res = await h.request('POST', '/api/v1/conversation/message', { json: { conversationId, message: 'hello' } });
    expect(res.status).toBe(500);
    expect(res.headers.get('retry-after')).toBeNull();
    expect(res.json().error).toMatchObject({
      code: 'TURN_FAILED',
      message: 'The turn failed (INTERNAL).',
      details: { failureType: 'INTERNAL', retryable: false },
    });
    expect(attempts).toBe(1);
    const rows = (await h.request('GET', `/api/v1/conversation/audit/${conversationId}`)).json() as ApiJson[];
    expect(rows.filter((row) => row.stage === 'STEP_ERROR').map((row) => row.payload.step)).toEqual(['Memory']);
    expect(rows.at(-1)).toMatchObject({
      stage: 'ENGINE_UNKNOWN_FAILURE',
      payload: { step: 'Memory', errorCode: 'INTERNAL', recoverable: false, attempt: 1 },
    });
  });
});
