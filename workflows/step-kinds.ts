import { ActivityFailure, patched } from '@temporalio/workflow';
import { handOverReason } from '../core/errors';
import type { StepSpec } from '../core/turn/steps';
import { stepRunsIn } from './step-runs';

/** Histories from before local-first steps scheduled every `model` and `remote` step as a regular activity. */
export const LOCAL_FIRST_PATCH = 'local-first-steps';

/** Why a local attempt handed its step to a regular activity (NEEDS_REGULAR_ACTIVITY), or null. */
export function escalationReason(err: unknown): string | null {
  // A failed local activity reaches workflow code as its ApplicationFailure, unwrapped.
  return handOverReason(err instanceof ActivityFailure ? err.cause : err);
}

/**
 * Local steps, and local-first ones in histories that try them locally. Step runs came after
 * local-first steps, so their patches imply it: a new history records one patch marker (and one
 * TemporalChangeVersion upsert, a billable action), not several.
 */
export function runsLocally(spec: StepSpec): boolean {
  return spec.kind === 'local' || (spec.localFirst === true && (stepRunsIn() !== null || patched(LOCAL_FIRST_PATCH)));
}
