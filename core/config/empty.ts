import type { ConfigRows } from './types';

/**
 * A config with no ce_intent and no ce_response row: nothing was ever loaded (a database `migrate` created and no
 * `seed` or `config apply` filled). It validates (there is nothing to refuse), yet every message fails
 * RESPONSE_MAPPING_NOT_FOUND, so `validate-config`, `doctor`, readiness and the message route say this instead.
 */
export function isEmptyConfig(rows: Pick<ConfigRows, 'intents' | 'responses'>): boolean {
  return rows.intents.length === 0 && rows.responses.length === 0;
}

const REASON = 'no ce_intent and no ce_response row, so every message fails';
const FIX = 'load one with `convengine seed all` (the bundled packs) or `convengine config apply <dir>`';

/** What `doctor`, readiness (`warnings.config`) and the log say of an empty config. */
export const CONFIG_EMPTY_WARNING = `the config is empty (${REASON}): ${FIX}`;

/** What `validate-config` says of an empty config, by version. */
export function configEmptyLine(version: string): string {
  return `config empty: ${REASON}, in version ${version}; ${FIX}`;
}
