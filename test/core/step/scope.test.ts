import { StepScope } from '../../../core/step/scope';
import { sessionFor } from '../../support/config-rows';

describe('StepScope', () => {
  it('works on a copy, stamps audits with the intent/state of the moment, and absorbs sub-results in place', () => {
    const original = sessionFor('x', { intent: 'A', state: 'S1' });
    const scope = new StepScope(original);
    const held = scope.session;
    scope.audit('FIRST');
    scope.absorb({
      session: { ...held, state: 'S2', context: { k: 1 } },
      audits: [{ stage: 'SUB', payload: {} }],
      stop: { reason: 'SHORT_CIRCUIT', payload: { type: 'TEXT', value: 'x' } },
    });
    scope.audit('SECOND');
    expect(original.state).toBe('S1');
    expect(held.state).toBe('S2');
    expect(held.context).toEqual({ k: 1 });
    expect(scope.audits.map((a) => [a.stage, a.meta?.state])).toEqual([
      ['FIRST', 'S1'],
      ['SUB', undefined],
      ['SECOND', 'S2'],
    ]);
    expect(scope.output().stop?.reason).toBe('SHORT_CIRCUIT');
  });
});
