import { readSetting } from '../../core/config/setting';
import { PendingActionSettings as S } from '../../core/config/settings/pipeline';
import { P } from '../../core/params/keys';
import { actionRefFromCatalog, explicitActionKey, pendingActionCandidates } from '../../core/pending/catalog';
import {
  applyDecision,
  expireRuntime,
  openRuntimeIfNew,
  runtimeOf,
  type LifecycleClock,
  type LifecycleEvent,
} from '../../core/pending/lifecycle';
import type { StepOutput } from '../../core/turn/contracts';
import type { StepContext } from '../step-runtime';

/** Keeps `context.pending_action_runtime` (§5.8): expiry by turns/minutes, OPEN for new actions, execute/reject moves. */
export async function actionLifecycle(ctx: StepContext): Promise<StepOutput> {
  if (!readSetting(ctx.snapshot, S.lifecycleEnabled)) return ctx.scope.output();
  const session = ctx.scope.session;
  const clock: LifecycleClock = {
    turn: session.turnNumber,
    nowMs: ctx.deps.clock.now().getTime(),
    ttlTurns: readSetting(ctx.snapshot, S.ttlTurns),
    ttlMinutes: readSetting(ctx.snapshot, S.ttlMinutes),
  };
  const runtime = runtimeOf(session.context);
  const events: LifecycleEvent[] = [];
  const expired = expireRuntime(runtime, clock);
  if (expired) events.push(expired);
  const key = explicitActionKey(session.inputParams, session.context);
  const ref = actionRefFromCatalog(
    pendingActionCandidates(ctx.snapshot, session.intent, session.state, key),
    key !== null
  );
  if (ref) {
    const opened = openRuntimeIfNew(runtime, key, ref, clock);
    if (opened) events.push(opened);
    const moved = applyDecision(runtime, String(session.inputParams[P.policyDecision] ?? ''), clock, key, ref);
    if (moved) events.push(moved);
  }
  if (Object.keys(runtime).length > 0) session.context['pending_action_runtime'] = runtime;
  for (const e of events) {
    session.inputParams['pending_action_runtime_status'] = e.event;
    ctx.scope.audit('PENDING_ACTION_LIFECYCLE', e.payload);
  }
  return ctx.scope.output();
}
