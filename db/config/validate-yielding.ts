import { setImmediate as nextTurnOfEventLoop } from 'node:timers/promises';
import type { SettingDefinition } from '../../core/config/setting';
import type { ConfigRows } from '../../core/config/types';
import { validateConfigPausing, type ConfigValidationResult } from '../../core/config/validate';
import type { ValidationOptions } from '../../core/config/validation/context';

/** What config rows are validated against (ConfigStoreOptions). */
export interface ConfigChecks {
  /** Declared ce_config settings to validate against (default: every declared setting). */
  settings?: readonly SettingDefinition[];
  /** Checks that need I/O-side parts (the SQL parser for sql_template), as `config apply` runs them. */
  validation?: ValidationOptions;
}

/**
 * validateConfig for a process that serves requests meanwhile (a worker's or the API's config store): it yields to
 * the event loop between checks, so a reload of a large config delays a health check or another turn by one check,
 * not by the whole validation.
 */
export function validateYielding(rows: ConfigRows, checks: ConfigChecks): Promise<ConfigValidationResult> {
  return validateConfigPausing(rows, () => nextTurnOfEventLoop(), checks.settings, checks.validation);
}
