/**
 * `convengine sre list`, the command as an operator runs it (bin/convengine.js, its own process), against a real
 * server, worker and PostgreSQL with a held turn: its lines name the turn and its held call, a tool's error shows its
 * controls as code points (no escape sequence reaches the terminal, no line is forged), and --json carries the error
 * as the tool wrote it.
 */
import type { TurnActivities } from '../../core/turn/activities';
import { held, heldTurnSuite } from '../support/held-turn-suite';
import { extracted, loanConfig, plan } from '../support/loan-config';
import { answer } from '../support/order-config';
import { runConvengine } from '../support/run-cli';

jest.setTimeout(120_000);

const SUBMIT = 'loan.application.submit';
/** An OSC 52 clipboard write, a screen clear, a carriage return that overwrites the line, a bidi override. */
const HOSTILE = 'upstream x\u001b]52;c;ZXZpbA==\u0007\u001b[2J\rturn-forged  held call unavailable\u202e';
/** On its line: the controls as code points, the carriage return a space (a line break in a tool's error is one). */
const HOSTILE_SHOWN = 'upstream x⟨U+001B⟩]52;c;ZXZpbA==⟨U+0007⟩⟨U+001B⟩[2J turn-forged  held call unavailable⟨U+202E⟩';

/** The submit fails every attempt with the hostile text, as an upstream's error may read. */
function hostileSubmit(base: TurnActivities): TurnActivities {
  return {
    ...base,
    McpToolCall: async (input) => {
      if (input.call.toolCode === SUBMIT) throw new Error(HOSTILE);
      return base.McpToolCall(input);
    },
  };
}

describe('convengine sre list', () => {
  const suite = heldTurnSuite({
    activities: hostileSubmit,
    script: () => [
      extracted('CUST-1001'),
      plan('loan.credit.rating.check', 'CUST-1001'),
      plan(SUBMIT, 'CUST-1001'),
      answer('Submitted.'),
    ],
  });

  it("lists a held turn, a tool's error shown in its lines and as written in --json", async () => {
    const h = suite.harness();
    await h.mcp.configure(
      loanConfig({ submit: { onRetriesExhausted: 'HOLD', maxAttempts: 2, initialIntervalMs: 100 } })
    );
    const parked = held(await h.send({ message: 'Apply loan for customer CUST-1001, amount 350000 for 36 months.' }));
    const id = parked.ref.workflowId;
    const args = ['sre', 'list', ...suite.serverArgs()];
    const [human, json] = await Promise.all([runConvengine(args, {}), runConvengine([...args, '--json'], {})]);

    expect(human).toMatchObject({ code: 0, stderr: '' });
    // eslint-disable-next-line no-control-regex -- finding them is the point
    expect(human.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/u);
    expect(human.stdout.trimEnd().split('\n')).toEqual([
      `${id}  ${SUBMIT} (call 2, IDEMPOTENT_WRITE)`,
      `  2 attempt(s), Error: ${HOSTILE_SHOWN}`,
      expect.stringMatching(/^ {2}held since \S+, answers without it at \S+$/),
    ]);

    expect(json).toMatchObject({ code: 0, stderr: '' });
    const turns = json.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { workflowId: string; held: { toolCode: string; error: string } });
    expect(turns).toHaveLength(1);
    expect(turns[0]).toMatchObject({ workflowId: id, held: { toolCode: SUBMIT, attempts: 2 } });
    expect(turns[0]?.held.error).toContain(HOSTILE);
    expect(json.stdout).not.toContain('⟨U+');
  });
});
