/** `convengine sre list`: a held call's error is a tool's words, printed on its line and never obeyed. */
import { printHeldTurn } from '../../cli/commands/sre';
import { printApprovals } from '../../cli/commands/sre-lists';

it("prints a held call's error on one line, its controls as code points", () => {
  const out: string[] = [];
  const io = { out: (line: string) => out.push(line), err: () => undefined, stdin: process.stdin };
  const held = {
    toolCode: 'order.status',
    callIndex: 1,
    sideEffect: 'READ_ONLY',
    attempts: 3,
    failureType: 'TOOL_HTTP_ERROR',
    error: 'upstream said \u202eliated\u202c \u001b[2J\r\nretry later',
    outcomeUnknown: false,
    heldAt: '2026-12-01T00:00:00.000Z',
    expiresAt: '2026-12-02T00:00:00.000Z',
    intent: 'ORDER',
    state: 'LOOKUP',
  };
  printHeldTurn(io, { workflowId: 'turn-x-1', runId: 'r', intent: null, state: null, configVersion: null, held });
  expect(out[1]).toBe('  3 attempt(s), TOOL_HTTP_ERROR: upstream said ⟨U+202E⟩liated⟨U+202C⟩ ⟨U+001B⟩[2J retry later');
});

/** A tool code and an intent and state are config rows' (anyone's text): a turn's lines show their controls. */
const HOSTILE = 'x\u001b]52;c;ZXZpbA==\u0007\r\nforged\u202e';
const HOSTILE_SHOWN = 'x⟨U+001B⟩]52;c;ZXZpbA==⟨U+0007⟩⟨U+000D⟩⟨U+000A⟩forged⟨U+202E⟩';

function printed(): {
  io: { out(line: string): void; err(line: string): void; stdin: NodeJS.ReadStream };
  lines: string[];
} {
  const lines: string[] = [];
  const push = (line: string) => void lines.push(line);
  return { io: { out: push, err: push, stdin: process.stdin }, lines };
}

it("prints a held turn's tool code, intent and state with their controls as code points", () => {
  const { io, lines } = printed();
  const held = {
    toolCode: HOSTILE,
    callIndex: 1,
    sideEffect: 'READ_ONLY',
    attempts: 1,
    failureType: 'TOOL_HTTP_ERROR',
    error: 'down',
    outcomeUnknown: false,
    heldAt: '2026-12-01T00:00:00.000Z',
    expiresAt: '2026-12-02T00:00:00.000Z',
    intent: HOSTILE,
    state: HOSTILE,
  };
  const turn = { workflowId: 'turn-x-1', runId: 'r', intent: HOSTILE, state: HOSTILE, configVersion: null };
  printHeldTurn(io, { ...turn, held });
  printHeldTurn(io, { ...turn, held: null, unavailable: HOSTILE });
  expect(lines).toEqual([
    `turn-x-1  ${HOSTILE_SHOWN} (call 1, READ_ONLY)`,
    '  1 attempt(s), TOOL_HTTP_ERROR: down',
    '  held since 2026-12-01T00:00:00.000Z, answers without it at 2026-12-02T00:00:00.000Z',
    `turn-x-1  held call unavailable: ${HOSTILE_SHOWN}`,
    `  at ${HOSTILE_SHOWN} / ${HOSTILE_SHOWN}`,
  ]);
});

it("prints an awaiting turn's tool code, intent and state with their controls as code points", async () => {
  const { io, lines } = printed();
  const turn = { workflowId: 'turn-c-2', runId: 'r', conversationId: 'c', turnNumber: 2, configVersion: null };
  const approval = { toolCode: HOSTILE, callIndex: 1, requestedAt: null, expiresAt: 'soon', decideWith: null };
  const turns = [{ ...turn, intent: HOSTILE, state: HOSTILE, approval }];
  expect(await printApprovals(io, { list: async () => ({ turns, next: null }) }, false)).toBe(0);
  expect(lines).toEqual([
    `turn-c-2  ${HOSTILE_SHOWN} (call 1) awaits approval`,
    `  conversation c turn 2, at ${HOSTILE_SHOWN} / ${HOSTILE_SHOWN} (turn-c-2)`,
    '  requested at an unknown time, expires soon',
  ]);
});
