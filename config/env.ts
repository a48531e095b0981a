import type { z } from 'zod';
import { apiLimitIssues } from './api-limits';
import { apiTokenIssues } from './api-tokens';
import { DATABASE_URL_UNSET, unmetNeeds, type EnvNeed, type EnvSource } from './env-needs';
import { envSchema } from './env-schema';
import { unknownVariableWarnings } from './env-unknown';
import type { GRPC_COMPRESSIONS, TEMPORAL_MODES } from './env-defaults';
import { temporalTlsIssues } from './temporal-tls-issues';

export type Env = z.infer<typeof envSchema>;
/** Every variable loadEnv reads (docs/configuration.md lists each; a test holds them together). */
export const ENV_VARIABLES = Object.keys(envSchema.shape) as (keyof Env)[];
export type TemporalMode = (typeof TEMPORAL_MODES)[number];
export type GrpcCompression = (typeof GRPC_COMPRESSIONS)[number];

export interface EnvIssue {
  variable: string;
  reason: string;
}

/**
 * Every invalid variable of an environment, in one error, so an operator fixes them all in one go. Values are never
 * echoed back: several of them carry secrets (config/env-schema.ts).
 */
export class EnvError extends Error {
  readonly type = 'ENV_INVALID';
  constructor(readonly issues: EnvIssue[]) {
    super(
      `Invalid environment (${issues.length} variable(s)):\n${issues.map((i) => `  ${i.variable}: ${i.reason}`).join('\n')}`
    );
    this.name = 'EnvError';
  }
}

export { DATABASE_URL_UNSET, type EnvNeed } from './env-needs';
export * from './env-defaults';

/** The variables that are set but invalid: one reason a variable, the first check it fails (it says what to fix). */
function invalidVariables(result: ReturnType<typeof envSchema.safeParse>): EnvIssue[] {
  if (result.success)
    return [...temporalTlsIssues(result.data), ...apiTokenIssues(result.data), ...apiLimitIssues(result.data)];
  const issues = result.error.issues.map((issue) => ({
    variable: String(issue.path[0] ?? '(environment)'),
    reason: issue.message,
  }));
  return issues.filter((issue, i) => issues.findIndex((o) => o.variable === issue.variable) === i);
}

/**
 * Parses the environment against envSchema (config/env-schema.ts), once at startup (every command:
 * cli/environment.ts); throws EnvError listing every invalid variable, and every one `needs` asks for that is
 * unset (a need whose variable is already listed as invalid is not listed twice).
 */
export function loadEnv(source: EnvSource = process.env, needs: readonly EnvNeed[] = []): Env {
  const result = envSchema.safeParse(source);
  const issues = invalidVariables(result);
  // A need whose variable is already listed as invalid is not listed twice.
  const listed = new Set(issues.map((i) => i.variable));
  issues.push(...unmetNeeds(source, needs).filter((issue) => !listed.has(issue.variable)));
  if (issues.length > 0 || !result.success) throw new EnvError(issues);
  return result.data;
}

/**
 * A warning line for each variable set under one of the engine's prefixes (TEMPORAL_, WORKER_, LOG_, …, from
 * ENV_VARIABLES) that it does not read: a typo's value is otherwise ignored without a word (config/env-unknown.ts).
 */
export function unknownEnvWarnings(source: EnvSource = process.env): string[] {
  return unknownVariableWarnings(source, ENV_VARIABLES);
}

/** The process's environment, with what a command needs (loadEnv). */
export function loadEnvFor(needs: readonly EnvNeed[]): Env {
  return loadEnv(process.env, needs);
}

/**
 * DATABASE_URL for a command that needs the database. The whole environment is validated as for every other command:
 * migrate shares its environment with the worker and the API (docker-compose), so a variable they would refuse must
 * stop it too, not pass it and leave them crash-looping. Throws EnvError.
 */
export function requireDatabaseUrl(source: EnvSource = process.env): string {
  const url = loadEnv(source, ['database']).DATABASE_URL;
  if (url === undefined) throw new EnvError([{ variable: 'DATABASE_URL', reason: DATABASE_URL_UNSET }]);
  return url;
}
