import {
  actionRefFromCatalog,
  actionRefFromContext,
  explicitActionKey,
  pendingActionCandidates,
} from '../../../core/pending/catalog';
import { applyDecision, expireRuntime, openRuntimeIfNew, type LifecycleClock } from '../../../core/pending/lifecycle';
import { pendingActionRow, snapshotOf } from '../../support/config-rows';

const clock: LifecycleClock = { turn: 2, nowMs: 1_000_000, ttlTurns: 3, ttlMinutes: 30 };

describe('pending action catalog', () => {
  const a = pendingActionRow({ intentCode: 'C', stateCode: 'S', actionKey: 'a', beanName: 'beanA', priority: 1 });
  const b = pendingActionRow({
    intentCode: 'C',
    stateCode: 'ANY',
    actionKey: 'b',
    beanName: 'beanB',
    methodNames: 'm1,m2',
    priority: 1,
  });
  const snap = snapshotOf({ pendingActions: [b, a] });

  it('ranks by scope then priority; needs a resolved intent and state', () => {
    expect(pendingActionCandidates(snap, 'C', 'S', null).map((r) => r.actionKey)).toEqual(['a', 'b']);
    expect(pendingActionCandidates(snap, 'C', 'UNKNOWN', null)).toEqual([]);
    expect(pendingActionCandidates(snap, 'C', 'S', 'B').map((r) => r.actionKey)).toEqual(['b']);
  });

  it('an equal-priority tie without an explicit key has no reference', () => {
    expect(actionRefFromCatalog([a, b], false)).toBeNull();
    expect(actionRefFromCatalog([a, b], true)).toBe('beanA:execute');
    expect(actionRefFromCatalog([b], false)).toBe('beanB:m1,m2');
  });

  it('reads keys and references from params and context', () => {
    expect(explicitActionKey({ pending_action_key: ' k ' }, {})).toBe('k');
    expect(explicitActionKey({}, { pending_action: { actionKey: 'z' } })).toBe('z');
    expect(actionRefFromContext({ bean: 'x', method: 'y' })).toBe('x:y');
    expect(actionRefFromContext('task:run')).toBe('task:run');
    expect(actionRefFromContext({ nothing: true })).toBeNull();
  });
});

describe('pending action lifecycle', () => {
  it('opens with TTLs, moves on decisions, expires by turn or time', () => {
    const runtime = {};
    expect(openRuntimeIfNew(runtime, null, 'bean:m', clock)?.event).toBe('OPEN');
    expect(runtime).toMatchObject({
      status: 'OPEN',
      created_turn: 2,
      expires_turn: 5,
      expires_at_epoch_ms: 1_000_000 + 30 * 60_000,
    });
    expect(openRuntimeIfNew(runtime, null, 'bean:m', clock)).toBeNull();
    expect(applyDecision(runtime, 'EXECUTE_PENDING_ACTION', clock, null, 'bean:m')?.event).toBe('IN_PROGRESS');
    expect(expireRuntime(runtime, { ...clock, turn: 4 })).toBeNull();
    expect(expireRuntime(runtime, { ...clock, turn: 5 })?.event).toBe('EXPIRED');
    expect(openRuntimeIfNew(runtime, null, 'bean:m', clock)?.event).toBe('OPEN');
    const timed = { status: 'OPEN', expires_turn: -1, expires_at_epoch_ms: 10 };
    expect(expireRuntime(timed, clock)?.event).toBe('EXPIRED');
    expect(applyDecision({}, 'RECLASSIFY_INTENT', clock, null, 'x')).toBeNull();
  });
});
