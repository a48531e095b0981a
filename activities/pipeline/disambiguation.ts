import { readSetting } from '../../core/config/setting';
import { PendingActionSettings as S } from '../../core/config/settings/pipeline';
import { ErrorType, isEngineError } from '../../core/errors';
import { P } from '../../core/params/keys';
import { pendingActionCandidates } from '../../core/pending/catalog';
import { renderPrompt, renderTemplate } from '../../core/templates';
import type { StepOutput } from '../../core/turn/contracts';
import type { StepContext } from '../step-runtime';
import { llmMeta, promptVars } from './support';

/** The LLM's question, or the template's when the LLM is off or gave no usable text (blank, cut off). */
async function question(ctx: StepContext, options: string[]): Promise<string> {
  const vars = promptVars(ctx, { options: options.join(', ') });
  const template = () => renderTemplate(readSetting(ctx.snapshot, S.disambiguationQuestion), vars);
  if (!readSetting(ctx.snapshot, S.disambiguationLlm)) return template();
  const systemPrompt = renderPrompt(readSetting(ctx.snapshot, S.disambiguationSystemPrompt), vars);
  const userPrompt = renderPrompt(readSetting(ctx.snapshot, S.disambiguationUserPrompt), vars);
  try {
    const text = await ctx.deps.llm.generateText({
      kind: 'DISAMBIGUATION',
      systemPrompt,
      userPrompt,
      meta: llmMeta(ctx.scope.session),
    });
    return text.trim() || template();
  } catch (err) {
    if (isEngineError(err) && err.type === ErrorType.LlmOutputInvalid) return template();
    throw err;
  }
}

/**
 * Several pending actions are equally eligible for "yes" (§5.8): ask which one instead of
 * guessing. The question becomes the pending clarification; nothing executes this turn.
 */
export async function disambiguation(ctx: StepContext): Promise<StepOutput> {
  const session = ctx.scope.session;
  if (!readSetting(ctx.snapshot, S.disambiguationEnabled)) return ctx.scope.output();
  if (session.inputParams[P.policyDecision] !== 'EXECUTE_PENDING_ACTION') return ctx.scope.output();
  const explicitKey = session.inputParams[P.pendingActionKey];
  if (typeof explicitKey === 'string' && explicitKey.trim() !== '') return ctx.scope.output();
  const candidates = pendingActionCandidates(ctx.snapshot, session.intent, session.state, null);
  const best = candidates[0];
  const tied = best ? candidates.filter((c) => c.priority === best.priority) : [];
  if (tied.length < 2) return ctx.scope.output();
  const max = readSetting(ctx.snapshot, S.disambiguationMaxOptions);
  const options = tied.slice(0, max).map((c) => (c.description ? `${c.actionKey} (${c.description})` : c.actionKey));
  const text = await question(ctx, options);
  session.pendingClarification = { question: text, reason: 'PENDING_ACTION_DISAMBIGUATION' };
  session.inputParams[P.policyDecision] = 'RECLASSIFY_INTENT';
  session.inputParams['pending_action_disambiguation_required'] = true;
  ctx.scope.audit('DISAMBIGUATION_REQUIRED', {
    reason: 'MULTIPLE_PENDING_ACTIONS',
    options,
    question: text,
    intent: session.intent,
    state: session.state,
  });
  return ctx.scope.output();
}
