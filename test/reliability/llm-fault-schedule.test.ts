import Anthropic from '@anthropic-ai/sdk';
import { CALL_KIND_HEADER, startScriptedLlm, type ScriptedLlm } from '../../scripted-llm';

/** The scripted server's fault schedule (scripted-llm/faults.ts), through the real SDK. */
describe('scripted LLM fault schedule', () => {
  let llm: ScriptedLlm;
  let client: Anthropic;

  beforeEach(async () => {
    llm = await startScriptedLlm({ script: [{ reply: 'recorded', persistent: true }] });
    client = new Anthropic({ apiKey: 'test', baseURL: llm.baseUrl, maxRetries: 0, timeout: 1_000 });
  });
  afterEach(async () => llm.stop());

  const ask = (kind: string, text = 'question') =>
    client.messages
      .create(
        { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: text }] },
        { headers: { [CALL_KIND_HEADER]: kind } }
      )
      .then((m) => (m.content[0]?.type === 'text' ? m.content[0].text : ''))
      .catch((err: unknown) => {
        if (err instanceof Anthropic.APIConnectionTimeoutError) return 'timeout';
        return err instanceof Anthropic.APIError ? `error ${err.status}` : String(err);
      });

  it('faults every Nth request of one kind, leaving other kinds and the requests between alone', async () => {
    llm.setFaults([{ kind: 'PLAN', every: 3, fault: { status: 529 } }]);
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await ask('PLAN'), await ask('DA'));
    expect(answers.filter((_, i) => i % 2 === 0)).toEqual([
      'recorded',
      'recorded',
      'error 529',
      'recorded',
      'recorded',
      'error 529',
    ]);
    expect(answers.filter((_, i) => i % 2 === 1)).toEqual(Array(6).fill('recorded'));
    expect(llm.injectedFaults()).toEqual({ 'PLAN status 529': 2 });
    expect(llm.requestsOf('PLAN').map((r) => r.status)).toEqual([200, 200, 529, 200, 200, 529]);
  });

  it('injects bursts, stops at a limit, and counts only requests whose prompt matches', async () => {
    llm.setFaults([
      { kind: 'A', every: 2, burst: 1, limit: 1, fault: { status: 429 }, label: 'once' },
      { kind: 'B', match: /order \d+/, every: 3, burst: 2, fault: { text: 'not json' }, label: 'burst' },
    ]);
    const a = [await ask('A'), await ask('A'), await ask('A'), await ask('A')];
    const b = [];
    for (const text of ['order 1', 'hello', 'order 2', 'order 3', 'order 4', 'order 5']) b.push(await ask('B', text));
    expect(a).toEqual(['recorded', 'error 429', 'recorded', 'recorded']);
    expect(b).toEqual(['recorded', 'recorded', 'recorded', 'not json', 'not json', 'recorded']);
    expect(llm.injectedFaults()).toEqual({ once: 1, burst: 2 });
  });

  it('answers late (a client timeout) and then from the script; an empty schedule turns faults off', async () => {
    llm.setFaults([{ every: 1, limit: 1, fault: { delayMs: 1_500 } }]);
    expect(await ask('X')).toBe('timeout');
    expect(await ask('X')).toBe('recorded');
    expect(llm.requests[0]?.fault).toBe('any delay 1500 ms');
    llm.setFaults([]);
    expect(await ask('X')).toBe('recorded');
    expect(llm.injectedFaults()).toEqual({});
  });

  it('refuses schedules that cannot work', () => {
    expect(() => llm.setFaults([{ every: 0, fault: { status: 529 } }])).toThrow(/every/);
    expect(() => llm.setFaults([{ every: 3, burst: 3, fault: { status: 529 } }])).toThrow(/burst/);
  });
});
