import { isJsonObject } from '../json';
import type { StepResult } from './contracts';
import { isRanList, type StepRunResult } from './step-runs';

/**
 * The failure type of a turn whose step answered with something that is no step result: an activity completed by
 * hand (`temporal activity complete --result …`), or by a worker of another build. Another attempt cannot help: the
 * answer is in history, and the turn would read it again.
 */
export const STEP_RESULT_MALFORMED = 'STEP_RESULT_MALFORMED';

const isStringList = (value: unknown): boolean =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

/** What is wrong with a KeyedPatch (`context`, `inputParams`), or null. */
function keyedPatchProblem(field: string, value: unknown): string | null {
  if (value === undefined) return null;
  if (!isJsonObject(value)) return `patch.${field} is not an object`;
  if (value['set'] !== undefined && !isJsonObject(value['set'])) return `patch.${field}.set is not an object`;
  if (value['unset'] !== undefined && !isStringList(value['unset']))
    return `patch.${field}.unset is not a list of names`;
  return null;
}

/** What is wrong with a SessionPatch, or null: what applySessionPatch reads. */
function patchProblem(patch: unknown): string | null {
  if (!isJsonObject(patch)) return 'it has no patch object';
  if (patch['set'] !== undefined && !isJsonObject(patch['set'])) return 'patch.set is not an object';
  if (patch['unset'] !== undefined && !isStringList(patch['unset'])) return 'patch.unset is not a list of names';
  return keyedPatchProblem('context', patch['context']) ?? keyedPatchProblem('inputParams', patch['inputParams']);
}

/** What is wrong with where a step's answer sends the driver (its stop, its direct tool call), or null. */
function directionProblem(answer: Record<string, unknown>): string | null {
  if (answer['stop'] !== undefined && !isJsonObject(answer['stop'])) return 'stop is not an object';
  const direct = answer['directToolCall'];
  if (direct !== undefined && !(isJsonObject(direct) && isJsonObject(direct['call']) && isJsonObject(direct['tool'])))
    return 'directToolCall has no call and tool';
  return null;
}

/** What the workflow reads of a StepResult besides its patch: its summary, its timing, where the driver goes next. */
function fieldsProblem(result: Record<string, unknown>): string | null {
  const summary = result['summary'];
  if (!isJsonObject(summary)) return 'it has no summary object';
  if (summary['progress'] !== undefined && typeof summary['progress'] !== 'string')
    return 'summary.progress is no text';
  const duration = result['durationMs'];
  if (duration !== undefined && !Number.isFinite(duration)) return 'durationMs is not a number';
  return directionProblem(result);
}

/** What is wrong with a step's answer as a StepResult (conversationTurnV2's every step answer), or null. */
export function stepResultProblem(value: unknown): string | null {
  if (!isJsonObject(value)) return 'it is not an object';
  return patchProblem(value['patch']) ?? fieldsProblem(value);
}

export function isWellFormedStepResult(value: unknown): value is StepResult {
  return stepResultProblem(value) === null;
}

/**
 * What is wrong with the session a step hands conversationTurn (v1) whole, or null: what the turn reads of it as it
 * ends (its result, its search attributes) and sends on to the next step.
 */
function sessionProblem(session: unknown): string | null {
  if (!isJsonObject(session)) return 'it has no session object';
  for (const field of ['context', 'inputParams'] as const)
    if (!isJsonObject(session[field])) return `session.${field} is not an object`;
  for (const field of ['intent', 'state', 'configVersion'] as const)
    if (typeof session[field] !== 'string') return `session.${field} is no text`;
  return null;
}

/** What is wrong with a step's answer as conversationTurn (v1) takes it, a StepOutput with the whole session, or null. */
export function stepOutputProblem(value: unknown): string | null {
  if (!isJsonObject(value)) return 'it is not an object';
  if (value['patch'] !== undefined) return 'it is a StepResult, which conversationTurn never asks for';
  if (!Array.isArray(value['audits'])) return 'audits is not a list';
  return sessionProblem(value['session']) ?? directionProblem(value);
}

/** What is wrong with a step run's answer (LocalSteps, RegularSteps), or null; each step's result checked too. */
export function stepRunResultProblem(value: unknown): string | null {
  if (!isJsonObject(value)) return 'it is not an object';
  const ran = value['ran'];
  if (!isRanList(ran)) return 'ran is not a list of steps with their durations';
  for (const [k, entry] of (ran as StepRunResult['ran']).entries()) {
    if (typeof entry.callKey !== 'string') return `ran[${k}] has no callKey`;
    const problem = stepResultProblem(entry.result);
    if (problem) return `ran[${k}] (${entry.name}): ${problem}`;
  }
  const handed = value['handedOver'];
  if (handed === null || handed === undefined) return null;
  if (!isJsonObject(handed) || typeof handed['name'] !== 'string' || typeof handed['callKey'] !== 'string')
    return 'handedOver is neither null nor a step';
  return typeof handed['reason'] === 'string' ? null : 'handedOver has no reason';
}
