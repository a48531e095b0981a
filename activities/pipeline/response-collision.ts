import { readSetting } from '../../core/config/setting';
import { CollisionSettings } from '../../core/config/settings/pipeline';
import { textPayload } from '../../core/response/payload';
import { renderPrompt } from '../../core/templates';
import type { StepContext } from '../step-runtime';
import { llmMeta, promptVars } from './support';

/** INTENT_COLLISION (§4.3): no ce_response; the LLM asks the user which intent they meant. */
export async function resolveCollision(ctx: StepContext): Promise<void> {
  const session = ctx.scope.session;
  ctx.scope.audit('INTENT_COLLISION_DETECTED', {
    intent: session.intent,
    state: session.state,
    question: session.pendingClarification?.question ?? null,
    candidates: session.inputParams['intent_collision_candidates'] ?? [],
  });
  const vars = promptVars(ctx, {
    followups: session.inputParams['followups'] ?? [],
    intent_top3: session.inputParams['intent_top3'] ?? [],
  });
  const systemPrompt = renderPrompt(readSetting(ctx.snapshot, CollisionSettings.systemPrompt), vars);
  const userPrompt = renderPrompt(readSetting(ctx.snapshot, CollisionSettings.userPrompt), vars);
  const hint = renderPrompt(readSetting(ctx.snapshot, CollisionSettings.derivationHint), vars);
  const output = await ctx.deps.llm.generateText({
    kind: 'COLLISION',
    systemPrompt,
    userPrompt: hint.trim() === '' ? userPrompt : `${userPrompt}\n\n${hint}`,
    meta: llmMeta(session),
  });
  const reply = textPayload(output);
  session.payload = reply.payload;
  session.lastAssistantJson = reply.stored;
  ctx.scope.audit('INTENT_COLLISION_RESOLVED', { output, intent: session.intent, state: session.state });
}
