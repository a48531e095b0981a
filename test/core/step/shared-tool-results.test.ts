import { cloneAsJson, isSharedJson, jsonEqual, shareJson, type Json } from '../../../core/json';
import { shareToolResults } from '../../../core/mcp/context';
import { StepScope } from '../../../core/step/scope';
import { applySessionPatch, diffSession } from '../../../core/turn/patch';
import { screenOutputJson } from '../../../core/text/storable-output';
import { sessionFor } from '../../support/config-rows';

/** The sweep's body: half a million `[]`, 1 MB of JSON that every step copied and compared whole (49 s a turn). */
const manyArrays = (): Json => ({ orderId: 'ORD-31', a: Array.from({ length: 500_000 }, () => []) });

describe('a tool result is shared, not copied per step (core/json.ts shareJson)', () => {
  it('is frozen through and through, and a copy of it is itself', () => {
    const result = shareJson({ mapped: { rows: [{ id: 1 }] } } as Json);
    expect(isSharedJson(result)).toBe(true);
    expect(Object.isFrozen((result as { mapped: { rows: object[] } }).mapped.rows[0])).toBe(true);
    expect(cloneAsJson({ result })).toEqual({ result });
    expect((cloneAsJson({ result }) as { result: Json }).result).toBe(result);
    const screened = screenOutputJson({ result });
    expect(screened.ok && (screened.json as { result: Json }).result).toBe(result);
    expect(() => {
      'use strict';
      (result as { mapped: { rows: { id: number }[] } }).mapped.rows[0]!.id = 2;
    }).toThrow(TypeError);
  });

  it('a step that changes context.mcp hands back a patch that holds the same result, and the next session too', () => {
    const session = sessionFor('check ORD-31');
    session.context['mcp'] = { observations: [{ toolCode: 't', args: {}, status: 'SUCCESS', result: manyArrays() }] };
    shareToolResults(session);
    const result = (session.context['mcp'] as { observations: { result: Json }[] }).observations[0]!.result;
    expect(isSharedJson(result)).toBe(true);
    for (let step = 0; step < 20; step++) {
      const scope = new StepScope(session);
      (scope.session.context['mcp'] as Record<string, Json>)['lifecycle'] = { step };
      const patch = diffSession(session, scope.session);
      const next = applySessionPatch(session, patch);
      expect((next.context['mcp'] as { observations: { result: Json }[] }).observations[0]!.result).toBe(result);
      expect(jsonEqual(next.context, scope.session.context)).toBe(true);
    }
  });
});
