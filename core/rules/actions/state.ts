import { P } from '../../params/keys';
import { isJsonObject, setOwnField, tryParseJson, type Json, type JsonObject } from '../../json';
import { safeInputParams } from '../../params/safe';
import { sessionDict } from '../../session-view';
import { firstJsonPathMatch } from '../jsonpath';
import type { ActionContext } from './context';
import { parseInputParamAction, parseSetJsonAction } from './input-param-format';

const valueOf = (ctx: ActionContext): string => (ctx.rule.actionValue ?? '').trim();

export function setState(ctx: ActionContext): void {
  const { scope, rule } = ctx;
  const to = valueOf(ctx);
  if (to === '') return;
  const from = scope.session.state;
  scope.session.state = to;
  scope.audit('SET_STATE', {
    ruleId: rule.ruleId,
    fromState: from,
    toState: to,
    intent: scope.session.intent,
    context: scope.session.context,
  });
}

export function setIntent(ctx: ActionContext): void {
  const { scope, rule } = ctx;
  const to = valueOf(ctx);
  if (to === '') return;
  const from = scope.session.intent;
  scope.session.intent = to;
  scope.audit('SET_INTENT', {
    ruleId: rule.ruleId,
    fromIntent: from,
    toIntent: to,
    state: scope.session.state,
    context: scope.session.context,
  });
}

export function setInputParam(ctx: ActionContext): void {
  const { scope, rule } = ctx;
  const applied = parseInputParamAction(rule.actionValue);
  if (!applied) return;
  // The rule names the keys: each is an own field (Object.assign would make a `__proto__` key the prototype).
  for (const [key, value] of Object.entries(applied)) setOwnField(scope.session.inputParams, key, value);
  scope.audit('SET_INPUT_PARAM', {
    ruleId: rule.ruleId,
    appliedInputParams: applied,
    inputParams: safeInputParams(scope.session.inputParams),
  });
}

export function setJson(ctx: ActionContext): void {
  const parsed = parseSetJsonAction(ctx.rule.actionValue);
  if (!parsed) return;
  const value = firstJsonPathMatch(parsed.path, ctx.facts());
  if (value === undefined) return;
  setOwnField(ctx.scope.session.inputParams, parsed.key, value);
  ctx.scope.audit('SET_JSON', { ruleId: ctx.rule.ruleId, key: parsed.key, path: parsed.path, value });
}

interface DialogueActOverride {
  dialogueAct: string;
  confidence: Json;
  source: string;
  standaloneQuery: string | null;
}

function parseDialogueAct(text: string): DialogueActOverride | null {
  const json = text.startsWith('{') ? tryParseJson(text) : undefined;
  if (isJsonObject(json)) {
    const act = json['dialogueAct'];
    if (typeof act !== 'string' || act.trim() === '') return null;
    return {
      dialogueAct: act.trim().toUpperCase(),
      confidence: typeof json['confidence'] === 'number' ? json['confidence'] : 1,
      source: typeof json['source'] === 'string' ? json['source'] : 'RULE',
      standaloneQuery: typeof json['standaloneQuery'] === 'string' ? json['standaloneQuery'] : null,
    };
  }
  return text === '' ? null : { dialogueAct: text.toUpperCase(), confidence: 1, source: 'RULE', standaloneQuery: null };
}

export function setDialogueAct(ctx: ActionContext): void {
  const override = parseDialogueAct(valueOf(ctx));
  if (!override) return;
  const { session } = ctx.scope;
  const previous = session.inputParams[P.dialogueAct] ?? null;
  session.inputParams[P.dialogueAct] = override.dialogueAct;
  session.inputParams[P.dialogueActConfidence] = override.confidence;
  session.inputParams[P.dialogueActSource] = override.source;
  if (override.standaloneQuery !== null) {
    session.standaloneQuery = override.standaloneQuery;
    session.resolvedUserInput = override.standaloneQuery;
    session.inputParams[P.standaloneQuery] = override.standaloneQuery;
    session.inputParams[P.resolvedUserInput] = override.standaloneQuery;
  }
  ctx.scope.audit('SET_DIALOGUE_ACT', {
    ruleId: ctx.rule.ruleId,
    previousDialogueAct: previous,
    dialogueAct: override.dialogueAct,
    confidence: override.confidence,
    source: override.source,
    standaloneQuery: override.standaloneQuery,
  });
}

function copyInto(ctx: ActionContext, stage: string, defaultKey: string, value: JsonObject): void {
  const key = valueOf(ctx) || defaultKey;
  setOwnField(ctx.scope.session.inputParams, key, value);
  ctx.scope.audit(stage, { ruleId: ctx.rule.ruleId, key, value });
}

export const getContext = (ctx: ActionContext): void =>
  copyInto(ctx, 'GET_CONTEXT', 'context', JSON.parse(JSON.stringify(ctx.scope.session.context)) as JsonObject);

export const getSchemaJson = (ctx: ActionContext): void =>
  copyInto(ctx, 'GET_SCHEMA_JSON', 'schema_json', ctx.schemaJson());

export const getSession = (ctx: ActionContext): void =>
  copyInto(
    ctx,
    'GET_SESSION',
    'session',
    JSON.parse(JSON.stringify(sessionDict(ctx.scope.session, ctx.schemaJson()))) as JsonObject
  );
