import { engineConfigStore, loadEngineValidation } from '../../activities/runtime/config-validation';
import { configEmptyLine } from '../../core/config/empty';
import { explainViolation } from '../../core/config/explain';
import { shownText } from '../../core/text/one-line-text';
import { readConfigRows } from '../../db/config/load';
import { openDatabase } from '../../db/pool';
import { commandDatabaseUrl } from '../environment';
import { usageError, type CliCommand } from '../command';
import { databaseFailure } from '../database-failure';
import { violationLine } from '../violation-line';

export const validateConfigCommand: CliCommand = {
  usage:
    'convengine validate-config [--explain]\n\n--explain prints, under each violation, its fix as SQL (see docs/migrating-from-java.md).\nExit code 0 when the config is valid (warnings are printed), 1 on any violation or when it is empty (no ce_intent and no ce_response row: every message fails), 2 when DATABASE_URL is missing.',
  async run(args, io) {
    const explain = args.length === 1 && args[0] === '--explain';
    if (args.length > 0 && !explain) {
      return usageError(
        io,
        `validate-config takes only --explain (got: ${args.join(' ')})`,
        validateConfigCommand.usage
      );
    }
    const url = commandDatabaseUrl(io);
    if (url === null) return 2;
    const handle = openDatabase(url, { max: 1 });
    try {
      const result = await engineConfigStore(handle.db, await loadEngineValidation()).validateDatabase();
      const rows = explain ? await readConfigRows(handle.db) : null;
      for (const v of result.violations) {
        io.out(violationLine(v));
        if (rows) io.out(`${indent(explainViolation(v, rows))}\n`);
      }
      for (const w of result.warnings) io.out(`warning: ${violationLine(w)}`);
      if (result.violations.length > 0) {
        io.err(`config invalid: ${result.violations.length} violation(s) in version ${result.version}`);
        return 1;
      }
      if (result.empty) {
        io.err(configEmptyLine(result.version));
        return 1;
      }
      io.out(`config valid: version ${result.version}`);
      return 0;
    } catch (err) {
      // Not the failed query's own message, which is its SQL text: its cause says why (cli/database-failure.ts).
      io.err(`validate-config failed: ${await databaseFailure(handle.pool, err)}`);
      return 1;
    } finally {
      await handle.close();
    }
  },
};

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${shownText(line)}`)
    .join('\n');
}
