import { sharedTokenWarning, type ApiTokenSettings } from '../../config/api-tokens';
import type { Finding } from './finding';

/**
 * The API's tokens, when it has any: a warning when API_TOKEN is the only one, since whoever holds it (a gateway
 * serving end users) then reaches the operator routes too. Null without API_TOKEN (the API then answers loopback only).
 */
export function checkApiTokens(env: ApiTokenSettings): Finding | null {
  if (env.API_TOKEN === undefined) return null;
  const warning = sharedTokenWarning(env);
  if (warning) return { check: 'api-tokens', level: 'warn', message: warning };
  const message = "API_TOKEN reaches the gateway's routes only; OPERATOR_API_TOKEN every route";
  return { check: 'api-tokens', level: 'ok', message };
}
