import { readSetting } from '../../core/config/setting';
import { DialogueActSettings } from '../../core/config/settings/dialogue-act';
import type { DialogueActGuess } from '../../core/dialogue/acts';
import { dialogueActSchema, readDialogueActAnswer } from '../../core/dialogue/llm-contract';
import { classifyDialogueActByRegex, type DialogueActPatterns } from '../../core/dialogue/regex-classifier';
import {
  needsLlm,
  resolveDialogueAct,
  type DialogueActMode,
  type DialogueActResolution,
} from '../../core/dialogue/resolve';
import { errorMessage } from '../../core/errors';
import { P } from '../../core/params/keys';
import { matchesUserRegexEntire } from '../../core/rules/regex-cache';
import { renderPrompt } from '../../core/templates';
import type { StepOutput } from '../../core/turn/contracts';
import { attemptAbandoned } from '../runtime/activity-context';
import type { StepContext } from '../step-runtime';
import { applyRules, llmMeta, promptVars } from './support';

function patternsOf(ctx: StepContext): DialogueActPatterns {
  const s = DialogueActSettings;
  const read = (def: typeof s.regexAffirm) => readSetting(ctx.snapshot, def);
  return {
    affirm: read(s.regexAffirm),
    negate: read(s.regexNegate),
    edit: read(s.regexEdit),
    reset: read(s.regexReset),
    greeting: read(s.regexGreeting),
  };
}

/** Asks the LLM; any failure (transport or answer) means "no candidate" and the regex guess stands. */
async function classifyByLlm(ctx: StepContext): Promise<DialogueActGuess | null> {
  const session = ctx.scope.session;
  const rewrite = readSetting(ctx.snapshot, DialogueActSettings.queryRewrite) && session.history.length > 0;
  const s = DialogueActSettings;
  const vars = promptVars(ctx);
  const systemPrompt = renderPrompt(readSetting(ctx.snapshot, rewrite ? s.rewriteSystemPrompt : s.systemPrompt), vars);
  const userPrompt = renderPrompt(readSetting(ctx.snapshot, rewrite ? s.rewriteUserPrompt : s.userPrompt), vars);
  const schema = dialogueActSchema(rewrite);
  ctx.scope.audit('DIALOGUE_ACT_LLM_INPUT', {
    system_prompt: systemPrompt,
    user_prompt: userPrompt,
    schema,
    queryRewrite: rewrite,
  });
  try {
    const answer = await ctx.deps.llm.generateJson({
      kind: 'DA',
      systemPrompt,
      userPrompt,
      schema,
      meta: llmMeta(session),
    });
    ctx.scope.audit('DIALOGUE_ACT_LLM_OUTPUT', {
      json: answer.raw,
      valid: answer.ok,
      ...(answer.ok ? {} : { error: answer.error }),
    });
    return answer.ok ? readDialogueActAnswer(answer.json) : null;
  } catch (err) {
    // A cancelled attempt (its worker stopping) is no failed call: the regex act must not stand in for the model's
    // answer, which the next attempt asks for again.
    if (attemptAbandoned()) throw err;
    ctx.scope.audit('DIALOGUE_ACT_LLM_ERROR', {
      message: errorMessage(err),
      exception: err instanceof Error ? err.name : 'Error',
    });
    return null;
  }
}

function writeParams(ctx: StepContext, regex: DialogueActGuess, r: DialogueActResolution): void {
  const session = ctx.scope.session;
  Object.assign(session.inputParams, {
    dialogue_act_regex: regex.act,
    dialogue_act_regex_confidence: regex.confidence,
    dialogue_act_llm_candidate: r.llmCandidate?.act ?? null,
    dialogue_act_llm_confidence: r.llmCandidate?.confidence ?? null,
    dialogue_act_llm_standalone_query: r.llmCandidate?.standaloneQuery ?? null,
    dialogue_act_guard_applied: r.guardApplied,
    dialogue_act_guard_reason: r.guardReason,
    [P.dialogueAct]: r.resolved.act,
    [P.dialogueActConfidence]: r.resolved.confidence,
    [P.dialogueActSource]: r.source,
  });
  const standalone = r.resolved.standaloneQuery;
  session.standaloneQuery = standalone;
  session.resolvedUserInput = standalone ?? session.userText;
  session.inputParams[P.standaloneQuery] = standalone;
  session.inputParams[P.resolvedUserInput] = session.resolvedUserInput;
}

/** Dialogue act (§5.6): regex first, the LLM when the mode asks for it, then POST_DIALOGUE_ACT rules. */
export async function dialogueAct(ctx: StepContext): Promise<StepOutput> {
  const session = ctx.scope.session;
  const mode = readSetting(ctx.snapshot, DialogueActSettings.resolveMode) as DialogueActMode;
  const patterns = patternsOf(ctx);
  const text = session.userText.trim();
  const regex = classifyDialogueActByRegex(text, patterns, {
    pendingClarification: session.pendingClarification !== null,
    intentLocked: session.intentLocked,
  });
  const callLlm = needsLlm(mode, regex, readSetting(ctx.snapshot, DialogueActSettings.llmThreshold));
  const candidate = callLlm ? await classifyByLlm(ctx) : null;
  const resolution = resolveDialogueAct(regex, callLlm, candidate, matchesUserRegexEntire(patterns.reset, text));
  writeParams(ctx, regex, resolution);
  ctx.scope.audit('DIALOGUE_ACT_CLASSIFIED', {
    userText: session.userText,
    dialogueAct: resolution.resolved.act,
    confidence: resolution.resolved.confidence,
    source: resolution.source,
    ...(resolution.resolved.standaloneQuery ? { standaloneQuery: resolution.resolved.standaloneQuery } : {}),
    dialogueActResolveMode: mode,
    intent: session.intent,
    state: session.state,
  });
  await applyRules(ctx, 'POST_DIALOGUE_ACT', 'DialogueActStep');
  return ctx.scope.output();
}
