import type { RuleAction } from './context';
import {
  getContext,
  getSchemaJson,
  getSession,
  setDialogueAct,
  setInputParam,
  setIntent,
  setJson,
  setState,
} from './state';
import { setTask } from './task';

/** Mutating actions by name. SHORT_CIRCUIT is handled by the engine because it ends evaluation. */
export const RULE_ACTIONS: Readonly<Record<string, RuleAction>> = {
  SET_STATE: setState,
  SET_INTENT: setIntent,
  SET_INPUT_PARAM: setInputParam,
  SET_JSON: setJson,
  SET_DIALOGUE_ACT: setDialogueAct,
  GET_CONTEXT: getContext,
  GET_SCHEMA_JSON: getSchemaJson,
  GET_SESSION: getSession,
  SET_TASK: setTask,
};

export const SHORT_CIRCUIT = 'SHORT_CIRCUIT';

export { shortCircuit } from './short-circuit';
export type { ActionContext, RuleAction } from './context';
export { parseInputParamAction, parseSetJsonAction, coerceScalar } from './input-param-format';
