import { DEMO_CONVERSATIONS } from '../../demo/conversations';
import { runConvengine } from '../support/run-cli';
import { usingRealServer } from '../support/temporal';

interface DemoLine {
  conversation: string;
  turn: number;
  conversationId: string;
  user: string;
  reply: string;
  intent: string;
  state: string;
  outcome: string;
  workflowId: string;
}

const fits = (expected: string | RegExp, actual: string) =>
  typeof expected === 'string' ? expected === actual : new RegExp(expected.source, expected.flags).test(actual);

describe(`convengine demo --json on the embedded stack (issue #7), Temporal: ${usingRealServer ? 'real server' : 'dev server'}`, () => {
  let lines: DemoLine[];
  let output: Record<string, unknown>[];
  let code: number;
  beforeAll(async () => {
    // Nothing listens on this port, so the demo starts its own embedded stack (PostgreSQL, scripted LLM,
    // demo tools, worker, API) exactly as on a machine with only Node installed; its Temporal is our
    // dev server, or in `npm run test:temporal` the real server through the same launcher as `start`.
    const env = {
      PORT: '1',
      DATABASE_URL: '',
      TEMPORAL_ADDRESS: '',
      CONVENGINE_TEMPORAL: usingRealServer ? 'cli' : 'embedded',
      ANTHROPIC_API_KEY: '',
      ANTHROPIC_BASE_URL: '',
    };
    const run = await runConvengine(['demo', '--json'], env, 240_000);
    code = run.code;
    if (run.code !== 0) console.error(run.stderr);
    output = run.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    lines = output.filter((l) => 'conversation' in l) as unknown as DemoLine[];
  }, 300_000);

  it('exits 0 and prints one JSON line per seed turn', () => {
    expect(code).toBe(0);
    const expected = DEMO_CONVERSATIONS.flatMap((c) => c.turns.map((_t, i) => `${c.name}#${i + 1}`));
    expect(lines.map((l) => `${l.conversation}#${l.turn}`).sort()).toEqual(expected.sort());
  });

  it('prints the progress messages of a planner turn as they arrive, before its reply (issue #21)', () => {
    const turn = lines.find((l) => l.conversation === 'order-diagnostics' && l.turn === 1);
    expect(turn).toBeDefined();
    const at = output.indexOf(turn as unknown as Record<string, unknown>);
    const progress = output
      .slice(0, at)
      .filter((l) => l['conversationId'] === turn?.conversationId && 'progress' in l)
      .map((l) => l['progress']);
    expect(progress).toEqual(['Looking up order status…', 'Tracing the async callback…', 'Diagnosis ready.']);
  });

  it('answers every seed conversation with its seed reply, intent and state, each turn a workflow', () => {
    for (const conversation of DEMO_CONVERSATIONS) {
      conversation.turns.forEach((turn, i) => {
        const line = lines.find((l) => l.conversation === conversation.name && l.turn === i + 1);
        expect(line).toBeDefined();
        if (!line) return;
        expect({ user: line.user, intent: line.intent, state: line.state }).toEqual({
          user: turn.message,
          intent: turn.expect.intent,
          state: turn.expect.state,
        });
        expect([conversation.name, i + 1, fits(turn.expect.reply, line.reply) ? 'ok' : line.reply]).toEqual([
          conversation.name,
          i + 1,
          'ok',
        ]);
        expect(line.workflowId).toMatch(new RegExp(`^turn-[0-9a-f-]{36}-${i + 1}$`));
      });
    }
  });
});
