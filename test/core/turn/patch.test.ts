import fc from 'fast-check';
import type { Json, JsonObject } from '../../../core/json';
import type { Session } from '../../../core/session';
import { applySessionPatch, diffSession, patchedPaths } from '../../../core/turn/patch';
import { blankSession } from '../../../core/turn/session-factory';

const base = blankSession({
  conversationId: 'c-1',
  turnNumber: 1,
  turnId: 'turn-c-1-1',
  message: 'hi',
  inputParams: { a: 1 },
  reset: false,
  requestContext: {},
  idempotencyKey: null,
  receivedAt: '2026-01-01T00:00:00.000Z',
});

const json: fc.Arbitrary<Json> = fc.jsonValue() as fc.Arbitrary<Json>;
const keyedObject: fc.Arbitrary<JsonObject> = fc.dictionary(fc.string({ maxLength: 6 }), json, { maxKeys: 6 });

const session: fc.Arbitrary<Session> = fc
  .record({
    intent: fc.string({ maxLength: 8 }),
    state: fc.string({ maxLength: 8 }),
    context: keyedObject,
    inputParams: keyedObject,
    pendingClarification: fc.option(fc.record({ question: fc.string(), reason: fc.string() }), { nil: null }),
    missingRequiredFields: fc.array(fc.string({ maxLength: 5 }), { maxLength: 4 }),
    lastLlmOutput: fc.option(fc.string(), { nil: null }),
  })
  .map((parts) => ({ ...base, ...parts }));

function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

describe('session patches (core/turn/patch.ts)', () => {
  it('applying the diff of two sessions to the first gives the second, whatever they hold', () => {
    fc.assert(
      fc.property(session, session, (before, after) => {
        const patch = diffSession(before, after);
        // Patches travel through event history as JSON: apply the decoded form, as the workflow does.
        const applied = applySessionPatch(before, plain(patch) as ReturnType<typeof diffSession>);
        expect(plain(applied)).toEqual(plain(after));
      }),
      { numRuns: 300 }
    );
  });

  it('never changes the session it is applied to, and gives the same result every time (deterministic)', () => {
    fc.assert(
      fc.property(session, session, (before, after) => {
        const snapshot = JSON.stringify(before);
        const patch = diffSession(before, after);
        const once = applySessionPatch(before, patch);
        const twice = applySessionPatch(before, patch);
        expect(JSON.stringify(before)).toBe(snapshot);
        expect(JSON.stringify(once)).toBe(JSON.stringify(twice));
      }),
      { numRuns: 200 }
    );
  });

  it('is empty for an unchanged session and names only what changed', () => {
    expect(diffSession(base, structuredClone(base))).toEqual({});
    const next: Session = { ...structuredClone(base), intent: 'FAQ' };
    next.context['mcp'] = { finalAnswer: 'x' };
    delete next.inputParams['a'];
    const patch = diffSession(base, next);
    expect(patch).toEqual({
      set: { intent: 'FAQ' },
      context: { set: { mcp: { finalAnswer: 'x' } } },
      inputParams: { unset: ['a'] },
    });
    expect(patchedPaths(patch)).toEqual(['intent', 'context.mcp', '-inputParams.a']);
  });
});
