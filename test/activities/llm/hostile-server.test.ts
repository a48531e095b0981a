import { createAnthropicLlmClient, type AnthropicLlmOptions, type LlmCallRecord } from '../../../activities/llm';
import type { LlmRequest } from '../../../core/llm';
import { startScriptedLlm, type ScriptedLlm } from '../../../scripted-llm';

const request = (extra: Partial<LlmRequest> = {}): LlmRequest => ({
  kind: 'RESP_TEXT',
  systemPrompt: 'You are terse.',
  userPrompt: 'Status?',
  meta: { conversationId: '00000000-0000-4000-8000-0000000000cc', turnNumber: 1, intent: 'ORDER', state: 'IDLE' },
  ...extra,
});

/** Tests of a bound fail in 10 s rather than wait for Jest's 120 s. */
const BOUND_TEST_MS = 10_000;

/** A Messages server that stalls, asks for hour-long waits, or answers without an answer: the client stays bounded. */
describe('Anthropic LLM client against a hostile server', () => {
  let llm: ScriptedLlm;
  let calls: LlmCallRecord[];
  beforeAll(async () => {
    llm = await startScriptedLlm();
  });
  afterAll(async () => llm.stop());
  beforeEach(() => {
    llm.setScript([]);
    llm.clearRequests();
    calls = [];
  });

  const client = (extra: Partial<AnthropicLlmOptions> = {}) =>
    createAnthropicLlmClient({
      apiKey: 'k',
      baseURL: llm.baseUrl,
      model: 'model-x',
      timeoutMs: 300,
      maxTokens: 50,
      maxRetries: 2,
      structuredOutput: false,
      onCall: async (entry) => {
        calls.push(entry);
      },
      ...extra,
    });
  const timed = async <T>(work: Promise<T>) => {
    const started = Date.now();
    const outcome = await work.catch((err: unknown) => err);
    return { outcome, ms: Date.now() - started };
  };

  it(
    'a body that stalls after the headers fails the call within LLM_TIMEOUT_MS, retryably',
    async () => {
      llm.push([{ kind: 'DA', stallBody: true, persistent: true }]);
      const { outcome, ms } = await timed(client().generateJson(request({ kind: 'DA' })));
      expect(outcome).toMatchObject({ type: 'LLM_CALL_FAILED', retryable: true, details: { kind: 'DA' } });
      expect(ms).toBeLessThan(1_500);
      expect(calls).toMatchObject([{ success: false, errorMessage: expect.stringMatching(/timeout/i) }]);
    },
    BOUND_TEST_MS
  );

  it.each([
    ['seconds', '3600'],
    ['an HTTP date', new Date(Date.now() + 3_600_000).toUTCString()],
  ])(
    'a Retry-After in %s longer than the allowed back-off is cut to it',
    async (_form, retryAfter) => {
      llm.push([{ kind: 'PLAN', error: { status: 429, retryAfter }, persistent: true }]);
      const { outcome, ms } = await timed(client({ retryWaitMaxMs: 200 }).generateText(request({ kind: 'PLAN' })));
      expect(outcome).toMatchObject({ type: 'LLM_CALL_FAILED', retryable: true, details: { status: 429 } });
      expect(llm.requestsOf('PLAN')).toHaveLength(3);
      expect(ms).toBeGreaterThanOrEqual(400);
      expect(ms).toBeLessThan(2_000);
    },
    BOUND_TEST_MS
  );

  it('a Retry-After within the back-off is kept', async () => {
    llm.push([
      { kind: 'PLAN', error: { status: 529, retryAfter: '0.3' } },
      { kind: 'PLAN', reply: 'planned' },
    ]);
    const { outcome, ms } = await timed(client({ retryWaitMaxMs: 5_000 }).generateText(request({ kind: 'PLAN' })));
    expect(outcome).toBe('planned');
    expect(ms).toBeGreaterThanOrEqual(300);
  });

  it.each([
    ['no content at all', { blocks: [] }, 'reply has no content'],
    [
      'only a tool_use block',
      { blocks: [{ type: 'tool_use', id: 'toolu_1', name: 'lookup', input: {} }], stopReason: 'tool_use' },
      'reply has no text (content: tool_use)',
    ],
    ['a reply cut off at max_tokens', { reply: 'The order is SUBM', stopReason: 'max_tokens' }, 'reply cut off'],
  ])('a text call answered with %s fails as LLM_OUTPUT_INVALID, not retried', async (_what, answer, problem) => {
    llm.push([{ kind: 'RESP_TEXT', ...answer }]);
    const outcome = await client()
      .generateText(request())
      .catch((err: unknown) => err);
    expect(outcome).toMatchObject({ type: 'LLM_OUTPUT_INVALID', retryable: false, details: { kind: 'RESP_TEXT' } });
    expect((outcome as Error).message).toContain(problem);
    expect(calls).toMatchObject([{ success: false, errorMessage: expect.stringContaining(problem) }]);
  });

  it('a JSON answer cut off at max_tokens is a bad answer even when what arrived parses', async () => {
    llm.push([{ kind: 'DA', reply: '12', stopReason: 'max_tokens' }]);
    expect(await client().generateJson(request({ kind: 'DA' }))).toEqual({
      ok: false,
      raw: '12',
      error: 'reply cut off (stop_reason max_tokens)',
    });
  });
});
