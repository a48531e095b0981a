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

// Names Object.prototype also has: `key in object` is true for them whatever the object holds.
const PROTOTYPE_NAMES = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__', 'isPrototypeOf'];
/** Objects built as JSON.parse builds them (every key an own field, `__proto__` included). */
const prototypeKeyed: fc.Arbitrary<JsonObject> = fc
  .array(fc.tuple(fc.constantFrom('a', 'b', ...PROTOTYPE_NAMES), json), { maxLength: 5 })
  .map((entries) => Object.fromEntries(entries) as JsonObject);

/** Own keys and values, sorted, all the way down: what a JSON reader of the value sees. */
function ownFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(ownFields);
  if (value === null || typeof value !== 'object') return value;
  return Object.keys(value)
    .sort()
    .map((key) => [key, ownFields((value as Record<string, unknown>)[key])]);
}

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

  it('patches keys named like Object.prototype members (constructor, toString, __proto__) as any other key', () => {
    const sessionWith = (context: JsonObject, inputParams: JsonObject): Session => ({ ...base, context, inputParams });
    fc.assert(
      fc.property(prototypeKeyed, prototypeKeyed, prototypeKeyed, prototypeKeyed, (c1, p1, c2, p2) => {
        const before = sessionWith(c1, p1);
        const after = sessionWith(c2, p2);
        const applied = applySessionPatch(before, plain(diffSession(before, after)) as ReturnType<typeof diffSession>);
        expect(ownFields(plain(applied))).toEqual(ownFields(plain(after)));
        expect(ownFields(applied)).toEqual(ownFields(plain(after)));
      }),
      { numRuns: 500 }
    );
  });

  it.each([
    [{ toString: false }, {}],
    [{ constructor: 'acct-1', a: 1 }, { a: 1 }],
    [{}, JSON.parse('{"__proto__": {}}') as JsonObject],
    [JSON.parse('{"__proto__": {"x": 1}}') as JsonObject, {}],
  ])('context %j patched to %j', (before, after) => {
    const patch = plain(diffSession({ ...base, context: before }, { ...base, context: after }));
    const applied = applySessionPatch({ ...base, context: before }, patch as ReturnType<typeof diffSession>);
    expect(ownFields(applied.context)).toEqual(ownFields(after));
    expect(Object.getPrototypeOf(applied.context)).toBe(Object.prototype);
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
