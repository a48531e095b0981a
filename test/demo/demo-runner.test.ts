import {
  demoSummary,
  formatDemoTranscript,
  runDemoConversations,
  type DemoConversation,
  type DemoSend,
} from '../../demo/conversations';

/** The transport-agnostic demo runner, driven by a fake transport. */
const CONVERSATIONS: DemoConversation[] = [
  {
    name: 'two-turns',
    pack: 'test',
    description: 'two turns in one conversation',
    turns: [
      { message: 'one', expect: { reply: 'first', intent: 'A', state: 'S1' } },
      { message: 'two', expect: { reply: /^sec/, intent: 'A', state: 'S2' } },
    ],
  },
  {
    name: 'single',
    pack: 'test',
    description: 'one turn',
    turns: [{ message: 'three', expect: { reply: 'third', intent: 'B', state: 'S3' } }],
  },
];

const ANSWERS: Record<string, { reply: string; intent: string; state: string }> = {
  one: { reply: 'first', intent: 'A', state: 'S1' },
  two: { reply: 'second', intent: 'A', state: 'S2' },
  three: { reply: 'third', intent: 'B', state: 'S3' },
};

function fakeSend(overrides: Record<string, Partial<{ reply: string; intent: string; state: string }>> = {}) {
  const calls: [string | null, string][] = [];
  const send: DemoSend = async (conversationId, turn) => {
    calls.push([conversationId, turn.message]);
    if (overrides[turn.message] === undefined && !(turn.message in ANSWERS)) throw new Error('boom');
    const answer = { ...ANSWERS[turn.message], ...overrides[turn.message] };
    return {
      conversationId: conversationId ?? `c-${turn.message}`,
      reply: answer.reply ?? '',
      intent: answer.intent ?? '',
      state: answer.state ?? '',
      outcome: 'ANSWERED',
    };
  };
  return { send, calls };
}

describe('runDemoConversations', () => {
  it('threads the conversation id through the turns and accepts exact and pattern replies', async () => {
    const { send, calls } = fakeSend();
    const records = await runDemoConversations(send, { conversations: CONVERSATIONS });
    expect(calls).toEqual([
      [null, 'one'],
      ['c-one', 'two'],
      [null, 'three'],
    ]);
    expect(records.map((r) => [r.conversation, r.turn, r.conversationId, r.ok, r.outcome, r.workflowId])).toEqual([
      ['two-turns', 1, 'c-one', true, 'ANSWERED', null],
      ['two-turns', 2, 'c-one', true, 'ANSWERED', null],
      ['single', 1, 'c-three', true, 'ANSWERED', null],
    ]);
    expect(demoSummary(records)).toEqual({ turns: 3, passed: 3, failed: 0 });
  });

  it('names every field that differs', async () => {
    const { send } = fakeSend({ two: { reply: 'other', state: 'S9' } });
    const records = await runDemoConversations(send, { conversations: CONVERSATIONS, only: ['two-turns'] });
    expect(records).toHaveLength(2);
    expect(records[1]).toMatchObject({
      ok: false,
      reply: 'other',
      mismatch: 'reply: expected /^sec/, got "other"; state: expected S2, got S9',
    });
    expect(formatDemoTranscript(records)).toContain('[two-turns #2] FAILED (A/S9)');
  });

  it("prints a reply's controls as code points: an override in it would reverse the terminal line", async () => {
    const { send } = fakeSend({ two: { reply: 'sec \u202eond\r\nline' } });
    const records = await runDemoConversations(send, { conversations: CONVERSATIONS, only: ['two-turns'] });
    const transcript = formatDemoTranscript(records).split('\n');
    expect(transcript).toContain('  reply: sec ⟨U+202E⟩ond line');
    expect(transcript.every((line) => !/[\r\u202e]/.test(line))).toBe(true);
  });

  it('reports a failed request and skips the rest of that conversation only', async () => {
    const { send, calls } = fakeSend();
    const broken: DemoConversation[] = [
      {
        ...CONVERSATIONS[0]!,
        turns: [{ ...CONVERSATIONS[0]!.turns[0]!, message: 'nope' }, CONVERSATIONS[0]!.turns[1]!],
      },
      CONVERSATIONS[1]!,
    ];
    const records = await runDemoConversations(send, { conversations: broken, parallel: true });
    expect(calls.map(([, message]) => message).sort()).toEqual(['nope', 'three']);
    expect(records.map((r) => [r.user, r.ok, r.mismatch])).toEqual([
      ['nope', false, 'request failed: boom'],
      ['two', false, 'not run: turn 1 failed'],
      ['three', true, undefined],
    ]);
    expect(demoSummary(records)).toEqual({ turns: 3, passed: 1, failed: 2 });
  });
});
