/** A held turn's current details (core/mcp/hold.ts describeHold): what the Temporal UI's panel shows of the hold. */
import { describeHold } from '../../../core/mcp/hold';
import type { HeldToolRequest } from '../../../core/turn/executor';

const REQUEST: HeldToolRequest = {
  toolCode: 'loan.application.submit',
  callIndex: 2,
  idempotencyKey: 'k',
  sideEffect: 'IDEMPOTENT_WRITE',
  attempts: 3,
  failureType: 'TOOL_HTTP_ERROR',
  error: 'HTTP_API call of loan.application.submit failed with status 503 after 3 attempt(s)',
  outcomeUnknown: false,
  timeoutMs: 60_000,
  hold: 1,
};
const EXPIRES = '2026-01-01T00:00:00.000Z';

describe('the current details of a held turn', () => {
  it('names the tool, its attempts and last error, and a command to paste with the turn’s own workflow id', () => {
    expect(describeHold(REQUEST, EXPIRES, 'turn-c-1')).toBe(
      '**Held for an operator**: `loan.application.submit` (call 2, IDEMPOTENT_WRITE) failed in 3 activity ' +
        'attempt(s); the last one: TOOL_HTTP_ERROR: HTTP_API call of loan.application.submit failed with status 503 ' +
        'after 3 attempt(s).\\\n' +
        'Answers without it at 2026-01-01T00:00:00.000Z. Resolve with `convengine sre retry --workflow-id turn-c-1` ' +
        '(or skip, fail, mark-done) or the update `resolveHeldTool`.' +
        // The Web UI cuts the last 14 px of the panel: a blank paragraph takes them.
        '\n\n\u00a0'
    );
  });

  it('says when the outcome is unknown, and cuts a long error (the whole of it is in the TOOL_HELD row)', () => {
    const text = describeHold({ ...REQUEST, outcomeUnknown: true, error: 'x'.repeat(5_000) }, EXPIRES, 'turn-c-1');
    expect(text).toContain(`TOOL_HTTP_ERROR: ${'x'.repeat(120)}….\\\nOutcome UNKNOWN: verify upstream`);
    expect(text.length).toBeLessThan(600);
  });
});
