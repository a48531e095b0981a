import { TURN_PATCHES } from '../workflows/turn-versions';

/**
 * A turn worker says in its Temporal identity how many of the turn workflow's patches it knows (`patches=<n>`: the
 * first n of TURN_PATCHES, which every build extends at its end only). A turn that recorded a patch a worker lacks
 * (its TemporalChangeVersion) fails every workflow task that worker takes (TMPRL1100), so the API can tell a worker
 * too old for a turn from the task queue's pollers.
 */
const PATCHES_MARKER = 'patches=';

/**
 * How many patches TURN_PATCHES held when workers began to say theirs: a worker whose identity does not say is of an
 * older build, which knows at most these (a build of a release before, fewer: 1dedc82 lacks parked-call-memo).
 */
export const PATCHES_BEFORE_MARKER = 17;

/** The identity's word for this build's patches. */
export const patchesWord = (): string => `${PATCHES_MARKER}${TURN_PATCHES.length}`;

/** How many patches a worker's identity says it knows, or null when it does not say (a build before the marker). */
export function patchesSaidBy(identity: string): number | null {
  const word = identity.split(' ').find((w) => w.startsWith(PATCHES_MARKER));
  const count = word === undefined ? NaN : Number(word.slice(PATCHES_MARKER.length));
  return Number.isSafeInteger(count) && count >= 0 ? count : null;
}

/** The most patches a worker with this identity may know: what it says, or PATCHES_BEFORE_MARKER when it does not. */
export function patchesKnownBy(identity: string): number {
  return patchesSaidBy(identity) ?? PATCHES_BEFORE_MARKER;
}

/**
 * The patches a turn recorded (its TemporalChangeVersion) that a worker knowing `known` patches lacks: the ones after
 * its first `known`, and ones this build does not know (a newer build's) unless the worker knows more than this build.
 */
export function patchesBeyond(recorded: readonly string[], known: number): string[] {
  return recorded.filter((id) => {
    const index = TURN_PATCHES.indexOf(id);
    return index === -1 ? known <= TURN_PATCHES.length : index >= known;
  });
}

/** A turn's TemporalChangeVersion as describe gives it (a keyword list), or none. */
export function recordedPatches(searchAttributes: Readonly<Record<string, unknown>> | undefined): string[] {
  const value = searchAttributes?.['TemporalChangeVersion'];
  return Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string') : [];
}
