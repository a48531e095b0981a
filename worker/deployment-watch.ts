import type { DeploymentMismatchError } from '../db/deployment';
import type { Logger } from '../observability/logger';
import type { PrerequisiteMonitor } from '../observability/prerequisites';

/** Started with the worker's run: calls `stop` with the mismatch once it appears; returns its own end. */
export type DeploymentWatch = (stop: (mismatch: DeploymentMismatchError) => void) => () => void;

/** The shortest gap between two checks of the binding, whatever the cache period (tests set it to 0). */
const DEPLOYMENT_WATCH_MIN_MS = 200;

/**
 * A database rebound to another deployment while the worker runs (`convengine migrate --bind-deployment`) is no
 * longer this worker's: it checks the binding once per cache period (the check /readyz runs, cached alike) and, on
 * a mismatch, stops as a SIGTERM stops it (docs/operations.md, "One database per deployment").
 */
export function deploymentWatch(prerequisites: PrerequisiteMonitor, everyMs: number, logger: Logger): DeploymentWatch {
  return (stop) => {
    let ended = false;
    let timer: NodeJS.Timeout | undefined;
    const next = () => {
      timer = setTimeout(check, Math.max(everyMs, DEPLOYMENT_WATCH_MIN_MS));
      timer.unref();
    };
    const check = async () => {
      const mismatch = await prerequisites.deploymentMismatch().catch(() => null);
      if (ended) return;
      if (!mismatch) return next();
      logger.error({ err: mismatch }, `worker stops taking turns: ${mismatch.message}`);
      stop(mismatch);
    };
    next();
    return () => {
      ended = true;
      clearTimeout(timer);
    };
  };
}
