import { EnvError, requireDatabaseUrl } from '../../config/env';
import { formatViolation } from '../../core/config/types';
import { createConfigStore } from '../../db/config/store';
import { openDatabase } from '../../db/pool';
import type { CliCommand } from '../command';

export const validateConfigCommand: CliCommand = {
  name: 'validate-config',
  summary: 'Validate the ce_* config in DATABASE_URL; list every violation as table[id]: reason.',
  usage:
    'convengine validate-config\n\nExit code 0 when the config is valid (warnings are printed), 1 on any violation, 2 when DATABASE_URL is missing.',
  async run(args, io) {
    if (args.length > 0) {
      io.err(`validate-config takes no arguments (got: ${args.join(' ')})`);
      return 2;
    }
    let url: string;
    try {
      url = requireDatabaseUrl();
    } catch (err) {
      if (!(err instanceof EnvError)) throw err;
      io.err(err.message);
      return 2;
    }
    const handle = openDatabase(url, { max: 1 });
    try {
      const result = await createConfigStore(handle.db).validateDatabase();
      for (const v of result.violations) io.out(formatViolation(v));
      for (const w of result.warnings) io.out(`warning: ${formatViolation(w)}`);
      if (result.violations.length > 0) {
        io.err(`config invalid: ${result.violations.length} violation(s) in version ${result.version}`);
        return 1;
      }
      io.out(`config valid: version ${result.version}`);
      return 0;
    } catch (err) {
      io.err(`validate-config failed: ${(err as Error).message}`);
      return 1;
    } finally {
      await handle.close();
    }
  },
};
