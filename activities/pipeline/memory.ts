import { readSetting } from '../../core/config/setting';
import { MemorySettings } from '../../core/config/settings/pipeline';
import { isJsonObject } from '../../core/json';
import { sessionSummary } from '../../core/memory/summary';
import { P } from '../../core/params/keys';
import type { StepOutput } from '../../core/turn/contracts';
import type { StepContext } from '../step-runtime';

/** Session summary into `context.memory` and `memory_session_summary`; persisted with the turn (D14). */
export async function memory(ctx: StepContext): Promise<StepOutput> {
  if (!readSetting(ctx.snapshot, MemorySettings.enabled)) return ctx.scope.output();
  const session = ctx.scope.session;
  const summary = sessionSummary(
    session,
    readSetting(ctx.snapshot, MemorySettings.recentTurns),
    readSetting(ctx.snapshot, MemorySettings.summaryMaxChars)
  );
  session.inputParams[P.memorySessionSummary] = summary;
  const existing = session.context['memory'];
  session.context['memory'] = { ...(isJsonObject(existing) ? existing : {}), session_summary: summary };
  ctx.scope.audit('MEMORY_UPDATED', {
    summaryChars: summary.length,
    recalled: false,
    stores: 0,
    intent: session.intent,
    state: session.state,
  });
  return ctx.scope.output();
}
