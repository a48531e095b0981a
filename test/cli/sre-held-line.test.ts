/** `convengine sre list`: a held call's error is a tool's words, printed on its line and never obeyed. */
import { printHeldTurn } from '../../cli/commands/sre';

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
