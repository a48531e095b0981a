import { ActivityFailure } from '@temporalio/workflow';
import { handOverReason } from '../core/errors';
import type { StepSpec } from '../core/turn/steps';
import type { TurnVersions } from './turn-versions';

/** Why a local attempt handed its step to a regular activity (NEEDS_REGULAR_ACTIVITY), or null. */
export function escalationReason(err: unknown): string | null {
  // A failed local activity reaches workflow code as its ApplicationFailure, unwrapped.
  return handOverReason(err instanceof ActivityFailure ? err.cause : err);
}

/** Local steps, and local-first ones in turns that try them locally (turn-versions.ts). */
export function runsLocally(spec: StepSpec, versions: TurnVersions): boolean {
  return spec.kind === 'local' || (spec.localFirst === true && versions.localFirst());
}
