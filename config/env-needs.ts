import { blankAsUnset } from './env-values';

/**
 * What a command needs set besides the variables every command checks when they are set: `convengine api` a
 * database and Temporal, `convengine worker` a model too. Part of the one validation, so a run lists every missing
 * and every invalid variable at once, in one format.
 */
export type EnvNeed = 'database' | 'temporal' | 'llm';

/** The variables as the process has them (process.env), or a test's. */
export type EnvSource = Readonly<Record<string, string | undefined>>;

const isSet = (source: EnvSource, variable: string): boolean => blankAsUnset(source[variable]) !== undefined;

export const DATABASE_URL_UNSET =
  'is not set; point it at PostgreSQL, e.g. postgres://postgres@127.0.0.1:5432/convengine';

/** Each need: the variable an issue names, whether the source meets it, and the reason when it does not. */
const NEEDS: Record<EnvNeed, { variable: string; met(source: EnvSource): boolean; reason: string }> = {
  database: { variable: 'DATABASE_URL', met: (s) => isSet(s, 'DATABASE_URL'), reason: DATABASE_URL_UNSET },
  temporal: {
    variable: 'TEMPORAL_ADDRESS',
    met: (s) => isSet(s, 'TEMPORAL_ADDRESS'),
    reason: 'is not set; point it at the Temporal frontend, e.g. localhost:7233 (`convengine start` runs one itself)',
  },
  // Without either, every LLM step would spend its retries on api.anthropic.com with no key, then fail the turn.
  llm: {
    variable: 'ANTHROPIC_API_KEY',
    met: (s) => isSet(s, 'ANTHROPIC_API_KEY') || isSet(s, 'ANTHROPIC_BASE_URL'),
    reason:
      'is not set, nor ANTHROPIC_BASE_URL: no LLM is configured; set ANTHROPIC_API_KEY (Anthropic) or ' +
      'ANTHROPIC_BASE_URL (a Messages API server); `convengine start` alone runs the keyless demo model',
  },
};

/** What `needs` asks for that `source` leaves unset: the variable each names and the fix. */
export function unmetNeeds(source: EnvSource, needs: readonly EnvNeed[]): { variable: string; reason: string }[] {
  return needs
    .map((n) => NEEDS[n])
    .filter((need) => !need.met(source))
    .map(({ variable, reason }) => ({ variable, reason }));
}
