import { hostname } from 'node:os';
import { TURN_WORKFLOW_TYPE } from '../workflows/turn-type';

/**
 * A turn worker says in its Temporal identity which turn workflow type it runs, so the API's readiness can tell
 * from the task queue's pollers that a worker of an older build (which lacks the type the API starts, and so
 * fails each turn's workflow task until a newer worker takes it) is polling. Older builds set no marker: a poller
 * without it is taken for one of them.
 */
const RUNS_MARKER = `runs=${TURN_WORKFLOW_TYPE}`;

/** The identity of a turn worker: Temporal's default (`pid@host`), or the one given, with the marker. */
export function turnWorkerIdentity(identity?: string): string {
  return `${identity ?? `${process.pid}@${hostname()}`} ${RUNS_MARKER}`;
}

export interface TurnPollersCheck {
  /** Readiness's `worker` check: `ok` while some worker polling runs the type the API starts. */
  check: string;
  warning?: string;
}

/** The API's readiness from the identities of the workflow pollers of its task queue (DescribeTaskQueue). */
export function turnPollersCheck(identities: readonly string[]): TurnPollersCheck {
  if (identities.length === 0) return { check: 'no worker polling' };
  const older = identities.filter((identity) => !identity.split(' ').includes(RUNS_MARKER)).length;
  if (older === identities.length) {
    return { check: `no worker polling runs ${TURN_WORKFLOW_TYPE}: deploy workers of this build` };
  }
  if (older === 0) return { check: 'ok' };
  return {
    check: 'ok',
    warning:
      `${older} of ${identities.length} workers polling do not run ${TURN_WORKFLOW_TYPE} (an older build): ` +
      'a turn one of them picks up waits ~10 s for its retry on another',
  };
}
