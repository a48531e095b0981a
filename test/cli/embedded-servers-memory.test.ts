/**
 * `convengine start`'s demo model and demo tool server run for as long as the stack does: what they remember of
 * the requests they answered must stay bounded (a 3,000-turn soak found the model's log holding ~30 KiB a turn).
 */
import { EMBEDDED_KEPT_REQUESTS, startEmbeddedDemoLlm, startEmbeddedToolServer } from '../../cli/stack/parts';
import { packConfigRows, resolveSeedPacks } from '../../db/seed';
import { CALL_KIND_HEADER } from '../../scripted-llm';

const CALLS = EMBEDDED_KEPT_REQUESTS + 50;

describe("convengine start's embedded servers keep a bounded request log", () => {
  it('the demo model keeps its latest requests only, and numbers them on', async () => {
    const llm = await startEmbeddedDemoLlm(async () => packConfigRows(resolveSeedPacks(['claims'])));
    try {
      for (let i = 1; i <= CALLS; i++) {
        await fetch(`${llm.baseUrl}/v1/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', [CALL_KIND_HEADER]: 'SOAK' },
          body: JSON.stringify({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: `message ${i}` }] }),
        }).then((res) => res.arrayBuffer());
      }
      expect(llm.requests).toHaveLength(EMBEDDED_KEPT_REQUESTS);
      expect(llm.requests.at(-1)).toMatchObject({ seq: CALLS, userText: `message ${CALLS}` });
      expect(llm.requests[0]?.seq).toBe(CALLS - EMBEDDED_KEPT_REQUESTS + 1);
    } finally {
      await llm.stop();
    }
  });

  it('the demo tool server keeps its latest requests only', async () => {
    const tools = await startEmbeddedToolServer();
    try {
      for (let i = 1; i <= CALLS; i++) await fetch(`${tools.baseUrl}/health?n=${i}`).then((res) => res.text());
      expect(tools.counters.log).toHaveLength(EMBEDDED_KEPT_REQUESTS);
      expect(tools.counters.log.at(-1)?.query).toEqual({ n: String(CALLS) });
    } finally {
      await tools.stop();
    }
  });
});
