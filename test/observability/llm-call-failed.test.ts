import { createAnthropicLlmClient } from '../../activities/llm';
import type { LlmRequest } from '../../core/llm';
import { llmCallObserver } from '../../observability/llm';
import { createLogger } from '../../observability/logger';
import { createWorkerMetrics } from '../../observability/metrics';
import { startScriptedLlm, type ScriptedLlm } from '../../scripted-llm';
import { captureLog } from '../support/log-capture';

/** A key the model wrote: it may quote the conversation (an order number the user typed). */
const MODEL_KEY = 'ORD-SECRET-5';
/** Any key, each a number: a model's answer with a string under its own key breaks it at that key's path. */
const schema = { type: 'object', additionalProperties: { type: 'number' } };
const request: LlmRequest = {
  kind: 'SCHEMA',
  systemPrompt: 'Count the orders.',
  userPrompt: `How many of ${MODEL_KEY}?`,
  schema,
  meta: { conversationId: '00000000-0000-4000-8000-0000000000dd', turnNumber: 1, intent: 'ORDER', state: 'IDLE' },
};

describe('the `llm call failed` line of a model answer that breaks the schema (observability/llm.ts)', () => {
  let llm: ScriptedLlm;
  beforeAll(async () => {
    llm = await startScriptedLlm();
  });
  afterAll(async () => llm.stop());

  const failedLine = async (withoutFailureText: boolean) => {
    const log = captureLog();
    const logger = createLogger({ level: 'info', format: 'json', name: 'worker', destination: log.stream });
    const observe = llmCallObserver({ logger, metrics: createWorkerMetrics(), withoutFailureText });
    const client = createAnthropicLlmClient({
      apiKey: 'k',
      baseURL: llm.baseUrl,
      model: 'model-x',
      timeoutMs: 2000,
      maxTokens: 300,
      maxRetries: 0,
      structuredOutput: false,
      onCall: async (entry) => observe(entry),
    });
    llm.push([{ kind: 'SCHEMA', reply: { [MODEL_KEY]: 'three' } }]);
    expect(await client.generateJson(request)).toMatchObject({ ok: false, unchecked: { [MODEL_KEY]: 'three' } });
    return { line: log.lines().find((l) => l['msg'] === 'llm call failed'), raw: log.raw() };
  };

  it('with payload encryption keys, says the failure kind only, not the path that names the model key', async () => {
    const { line, raw } = await failedLine(true);
    expect(line).toMatchObject({ level: 'warn', kind: 'SCHEMA', error: 'invalid output: schema mismatch' });
    expect(raw).not.toContain(MODEL_KEY);
  });

  it('without keys, says the mismatch whole as before', async () => {
    const { line } = await failedLine(false);
    expect(line).toMatchObject({ error: `invalid output: schema mismatch: /${MODEL_KEY} must be number` });
  });
});
