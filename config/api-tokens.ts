/**
 * The API's two bearer tokens (api/auth.ts): API_TOKEN, the gateway's, and OPERATOR_API_TOKEN, the operator's. With
 * both set, the gateway's reaches only the routes an end user's gateway needs and the operator's reaches every route;
 * with API_TOKEN alone, that one token reaches every route, as before there were two.
 */
export interface ApiTokenSettings {
  API_TOKEN?: string | undefined;
  OPERATOR_API_TOKEN?: string | undefined;
}

/** What the operator's token guards, as the warnings and the settings reference name it. */
export const OPERATOR_ROUTES_NAMED =
  'the operator routes (the console, audit rows and their stream, approval decisions, admin, what-if, metrics)';

/**
 * The combinations that cannot be meant: an operator's token without a gateway's (every route would be served
 * without a token, the operator's too), and one token under both names (the gateway's would reach every route).
 */
export function apiTokenIssues(env: ApiTokenSettings): { variable: string; reason: string }[] {
  const operator = env.OPERATOR_API_TOKEN;
  if (operator === undefined) return [];
  if (env.API_TOKEN === undefined) {
    const reason = 'is set without API_TOKEN: set API_TOKEN (the gateway token) too, or unset OPERATOR_API_TOKEN';
    return [{ variable: 'OPERATOR_API_TOKEN', reason }];
  }
  if (operator !== env.API_TOKEN) return [];
  const reason = 'is the same as API_TOKEN: give the operator a token of its own, or unset OPERATOR_API_TOKEN';
  return [{ variable: 'OPERATOR_API_TOKEN', reason }];
}

/** The warning of an API whose only token also reaches the operator routes; null when there is nothing to warn of. */
export function sharedTokenWarning(env: ApiTokenSettings): string | null {
  if (env.API_TOKEN === undefined || env.OPERATOR_API_TOKEN !== undefined) return null;
  return (
    `API_TOKEN is the only API token: whoever holds it, a gateway serving end users too, reaches ${OPERATOR_ROUTES_NAMED}, ` +
    "and with them every user's conversations. Set OPERATOR_API_TOKEN to keep those routes to operators " +
    '(docs/security.md, "What each token reaches").'
  );
}
