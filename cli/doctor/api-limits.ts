import { apiIntakeLimits, unreachableMessageLimitWarning, type ApiLimitSettings } from '../../config/api-limits';
import { openFilesLimit } from '../../config/open-files';
import type { Finding } from './finding';

/**
 * An API process's intake limits as `convengine api` here would take them (this host's open-files limit, the API's
 * own pool): a warning when MESSAGE_MAX_CONCURRENT cannot be reached (both variables set so: refused at start, before
 * any check). Null when neither variable is set and nothing is wrong: nothing to report.
 */
export function checkApiLimits(env: ApiLimitSettings, limit = openFilesLimit()): Finding | null {
  const limits = apiIntakeLimits(env, false, limit);
  const warning = unreachableMessageLimitWarning(env, limits);
  if (warning) return { check: 'api-limits', level: 'warn', message: warning };
  if (env.API_MAX_CONNECTIONS === undefined && env.MESSAGE_MAX_CONCURRENT === undefined) return null;
  const connections = limits.maxConnections === undefined ? 'no bound' : `${limits.maxConnections}`;
  const message = `messages at once ${limits.messageMaxConcurrent}, below connections ${connections}`;
  return { check: 'api-limits', level: 'ok', message };
}
