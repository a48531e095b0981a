import type { ConfigStore } from '../../core/config/store';
import { formatViolation, type ConfigRows, type ConfigSnapshot } from '../../core/config/types';
import { validateConfig } from '../../core/config/validate';
import { EngineError, ErrorType, isEngineError } from '../../core/errors';
import { readConfigRows, snapshotOf } from '../../db/config/load';
import { createConfigStore } from '../../db/config/store';
import type { Database } from '../../db/pool';

/**
 * A what-if request the caller got wrong: an unknown conversation or config version, a conversation pruned or erased
 * (its trail is gone), an invalid draft, a conversation longer than the caller allows a replay to be.
 */
export class WhatifInputError extends Error {
  constructor(
    readonly code:
      | 'CONVERSATION_NOT_FOUND'
      | 'CONVERSATION_RETIRED'
      | 'CONFIG_VERSION_NOT_FOUND'
      | 'CONFIG_INVALID'
      | 'CONVERSATION_TOO_LONG'
      | 'BAD_REQUEST',
    message: string
  ) {
    super(message);
    this.name = 'WhatifInputError';
  }
}

/** `current` (the config in the tables now) or a stored version: 16 hex digits (a content hash). */
export const CONFIG_VERSION_PATTERN = /^(current|[0-9a-f]{16})$/;

/** A draft from config rows (a YAML tree): validated first, so a replay never runs on invalid config. */
export function draftFromRows(rows: ConfigRows): ConfigSnapshot {
  const { violations } = validateConfig(rows);
  if (violations.length > 0) {
    const shown = violations.slice(0, 5).map(formatViolation).join('; ');
    throw new WhatifInputError('CONFIG_INVALID', `draft config invalid: ${violations.length} violation(s): ${shown}`);
  }
  return snapshotOf(rows);
}

/** A stored config version (ce_config_snapshot), or `current`. */
export async function draftFromVersion(db: Database, version: string): Promise<ConfigSnapshot> {
  if (!CONFIG_VERSION_PATTERN.test(version)) {
    throw new WhatifInputError('BAD_REQUEST', `config version must be "current" or 16 hex digits, got "${version}"`);
  }
  if (version === 'current') return draftFromRows(await readConfigRows(db));
  try {
    return await createConfigStore(db).get(version);
  } catch (err) {
    if (isEngineError(err) && err.type === ErrorType.ConfigVersionUnavailable) {
      throw new WhatifInputError('CONFIG_VERSION_NOT_FOUND', `no stored config version ${version}`);
    }
    throw err;
  }
}

/** Every step of a replayed turn reads the draft, whatever version it asks for. */
export function draftStore(draft: ConfigSnapshot): ConfigStore {
  return {
    current: async () => draft,
    async get(version) {
      if (version === draft.version) return draft;
      throw new EngineError(ErrorType.ConfigVersionUnavailable, `what-if replays only the draft ${draft.version}`);
    },
  };
}
