/** The TLS options of the connection to Temporal, besides TEMPORAL_TLS itself. */
export const TEMPORAL_TLS_OPTIONS = [
  'TEMPORAL_TLS_CLIENT_CERT_PATH',
  'TEMPORAL_TLS_CLIENT_KEY_PATH',
  'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
  'TEMPORAL_TLS_SERVER_NAME',
] as const;

/** The variables of the connection to Temporal that are checked together (config/temporal-connection.ts). */
export type TemporalTlsSettings = { TEMPORAL_TLS?: boolean | undefined; TEMPORAL_API_KEY?: string | undefined } & {
  [K in (typeof TEMPORAL_TLS_OPTIONS)[number]]?: string | undefined;
};

/**
 * The combinations that cannot be meant: half a client certificate pair, TLS options under
 * TEMPORAL_TLS=false, and an API key that would travel in clear text.
 */
export function temporalTlsIssues(env: TemporalTlsSettings): { variable: string; reason: string }[] {
  const issues: { variable: string; reason: string }[] = [];
  const cert = env.TEMPORAL_TLS_CLIENT_CERT_PATH;
  const key = env.TEMPORAL_TLS_CLIENT_KEY_PATH;
  if (cert !== undefined && key === undefined)
    issues.push({ variable: 'TEMPORAL_TLS_CLIENT_KEY_PATH', reason: 'is needed with TEMPORAL_TLS_CLIENT_CERT_PATH' });
  if (key !== undefined && cert === undefined)
    issues.push({ variable: 'TEMPORAL_TLS_CLIENT_CERT_PATH', reason: 'is needed with TEMPORAL_TLS_CLIENT_KEY_PATH' });
  if (env.TEMPORAL_TLS !== false) return issues;
  for (const variable of TEMPORAL_TLS_OPTIONS) {
    if (env[variable] !== undefined) issues.push({ variable, reason: 'is set, but TEMPORAL_TLS=false turns TLS off' });
  }
  if (env.TEMPORAL_API_KEY !== undefined) {
    issues.push({
      variable: 'TEMPORAL_API_KEY',
      reason: 'would be sent in clear text: TEMPORAL_TLS=false turns TLS off (unset TEMPORAL_TLS)',
    });
  }
  return issues;
}
