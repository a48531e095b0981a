import { formatViolation } from '../../core/config/types';
import type { Logger } from '../../observability/logger';
import type { ConfigStoreOptions, ServedConfig } from './store';

/** Violations named in a refusal's log line; `convengine validate-config` lists them all. */
const LOGGED_VIOLATIONS = 20;

/**
 * onRejected for a process with a logger: refused rows are a warning an operator sees in the log, with what is
 * wrong, instead of a silent fallback to the previous snapshot.
 */
export function logConfigRejections(logger: Pick<Logger, 'warn'>): ConfigStoreOptions['onRejected'] {
  return (violations, serving) =>
    logger.warn(
      {
        violations: violations.slice(0, LOGGED_VIOLATIONS).map(formatViolation),
        count: violations.length,
        servedVersion: serving?.version ?? null,
      },
      `config refused (${violations.length} violation(s)); ${servingText(serving)} — run convengine validate-config`
    );
}

function servingText(serving: ServedConfig | undefined): string {
  if (!serving) return 'no config is in service yet';
  if (serving.restored) return `serving stored config ${serving.version}, the newest stored one that validates`;
  return `config ${serving.version} stays in service`;
}
