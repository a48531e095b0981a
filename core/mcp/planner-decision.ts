import { isJsonObject, type Json } from '../json';
import type { PlannerDecision } from '../turn/contracts';
import { Fallback } from './constants';

/**
 * Turns the planner LLM's answer into a CALL_TOOL / ANSWER decision (§6.2, §6.3). Anything that
 * does not fit the contract becomes an ANSWER with a fixed fallback text, so a confused planner
 * can never make the engine call a tool it did not clearly name.
 */
export type PlannerOutput = { ok: true; json: Json } | { ok: false };

function text(value: Json | undefined): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

export function answerDecision(answer: string | null): PlannerDecision {
  return { action: 'ANSWER', toolCode: null, args: {}, answer, operationTag: null };
}

export function normalizePlannerOutput(output: PlannerOutput): PlannerDecision {
  if (!output.ok || !isJsonObject(output.json)) return answerDecision(Fallback.planError);
  const json = output.json;
  const rawAction = text(json['action']);
  const action = rawAction?.toUpperCase() ?? null;
  if (action !== null && action !== 'CALL_TOOL' && action !== 'ANSWER') return answerDecision(Fallback.planError);
  const toolCode = text(json['tool_code']);
  const answer = text(json['answer']);
  const operationTag = text(json['operation_tag']);
  const resolved = action ?? (toolCode !== null ? 'CALL_TOOL' : 'ANSWER');
  if (resolved === 'ANSWER') return { ...answerDecision(answer), operationTag };
  if (toolCode === null) return answerDecision(Fallback.unsafeNextStep);
  const args = isJsonObject(json['args']) ? json['args'] : {};
  return { action: 'CALL_TOOL', toolCode, args, answer, operationTag };
}
