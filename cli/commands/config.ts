import { loadEngineValidation } from '../../activities/runtime/config-validation';
import { commandDatabaseUrl } from '../environment';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CONFIG_TABLE_NAMES } from '../../core/config/rows';
import { strandedConversations, strandedWarning } from '../../core/config/stranded';
import type { ConfigRows, ConfigViolation } from '../../core/config/types';
import { shownText } from '../../core/text/one-line-text';
import type { ValidationOptions } from '../../core/config/validation/context';
import { validateConfig } from '../../core/config/validate';
import { isEngineError } from '../../core/errors';
import { applyComposedConfig, type ComposeConfig, type ComposedApply } from '../../db/config/apply';
import { readExactConfigRows } from '../../db/config/exact-rows';
import {
  configToYaml,
  diffConfig,
  formatChange,
  overlayConfigRows,
  tablesWithoutFile,
  withTreeTables,
  yamlToConfig,
  type YamlFiles,
} from '../../db/config/yaml-tree';
import { openDatabase, type Database } from '../../db/pool';
import { MAINTENANCE_SESSION } from '../../db/session-settings';
import { conversationsByState } from '../../db/repositories/conversation';
import { parseCommandArgs, usageError, type CliCommand, type CliIo } from '../command';
import { databaseFailure } from '../database-failure';
import { readYamlTree, YamlTreeFilesError } from '../yaml-tree-files';
import { warnParkedOnChangedTools } from '../config-parked-warning';
import { violationLine } from '../violation-line';

const USAGE = [
  'convengine config export <dir>                 write every ce_* config table as <dir>/<table>.yaml',
  'convengine config diff <dir>                   what applying <dir> would change in DATABASE_URL',
  'convengine config apply <dir> [--dry-run]      validate all of <dir>, then replace the config in one transaction',
  'convengine config validate <dir> [--complete]  validate <dir> on its own (no database; see below)',
  '',
  'apply refuses the whole set, naming each bad row, if anything is invalid; otherwise it writes every',
  'table in one transaction (rows missing from the file of its table are deleted; a table without a file is',
  'kept as it is; a directory without any .yaml file is refused), which bumps the config version, and',
  'prints the diff; a tree equal to the database writes nothing ("no changes", the version kept). Running',
  'turns keep the config version they started with. validate sees only the tree:',
  'of a table without a file it knows nothing, so what needs that table (a row another row names) is left',
  "to diff and apply, which check the tree with the database's tables. With --complete the tree is the whole",
  'config (a table without a file has no rows), checked as strictly as apply checks a database: for a',
  'repository that holds every table. diff and apply warn (stderr) of conversations at rest in an intent',
  'and state that a response answers now and none would after the change: their next turn may fail with',
  'RESPONSE_MAPPING_NOT_FOUND; and of turns parked on a tool the change removes, disables or changes (an',
  'approval, a held call): they run on the version they started on when decided. Exit codes: 0 ok, 1 invalid',
  'config or failure, 2 usage.',
].join('\n');

/**
 * How a tree meets `base`: `rows`, laid over it row by row (`start --config` over the packs); `tables`,
 * each table that has a file replaced by it, the others kept (`config apply` over the database).
 */
export type TreeScope = 'rows' | 'tables';

/**
 * A YAML tree as config rows; prints every problem and returns null when there is one. A directory
 * without any *.yaml file is refused: applied, it would have emptied every table. Without `base` the
 * tree is the config (`rows`: all of it; `tables`: the tables it has files for, the others unknown, as
 * `config validate` sees a tree that `apply` would lay over the database); with it, what is validated
 * is the tree composed with `base` by `scope`, and for `tables` that composition is what is returned.
 */
export async function loadYamlTree(
  dir: string,
  io: CliIo,
  base?: ConfigRows,
  scope: TreeScope = 'rows'
): Promise<ConfigRows | null> {
  const tree = await readTree(dir, io);
  return tree && composeTree(tree, io, await loadEngineValidation(), base, scope);
}

/** A directory's table files and the config rows they hold; prints every problem and returns null when there is one. */
async function readTree(dir: string, io: CliIo): Promise<ParsedTree | null> {
  let files: YamlFiles;
  try {
    files = await readYamlTree(dir, (line) => io.err(`warning: ${shownText(line)}`));
  } catch (err) {
    const problems = err instanceof YamlTreeFilesError ? err.problems : [(err as Error).message];
    for (const problem of problems) io.err(shownText(problem));
    return null;
  }
  if (files.size === 0) {
    io.err(`${dir}: no *.yaml files (write a tree with: convengine config export ${dir})`);
    return null;
  }
  const { rows, errors } = yamlToConfig(files);
  for (const e of errors) io.err(shownText(`${e.file}: ${e.message}`));
  return errors.length > 0 ? null : { dir, files, rows };
}

interface ParsedTree {
  dir: string;
  files: YamlFiles;
  rows: ConfigRows;
}

/** loadYamlTree once the tree is read: composed with `base` by `scope` and validated, with the engine's checks. */
function composeTree(
  { dir, files, rows }: ParsedTree,
  io: CliIo,
  engine: ValidationOptions,
  base?: ConfigRows,
  scope: TreeScope = 'rows'
): ConfigRows | null {
  const composed = !base ? rows : scope === 'rows' ? overlayConfigRows(base, rows) : withTreeTables(base, rows, files);
  const absentTables = !base && scope === 'tables' ? tablesWithoutFile(files) : [];
  if (absentTables.length > 0) io.err(partialTreeNote(dir, absentTables));
  const result = validateConfig(composed, undefined, { ...engine, absentTables });
  for (const w of result.warnings) io.err(`warning: ${violationLine(w)}`);
  for (const v of result.violations) io.err(violationLine(v));
  if (result.violations.length > 0) {
    io.err(`config invalid: ${result.violations.length} violation(s)`);
    return null;
  }
  return scope === 'tables' ? composed : rows;
}

function partialTreeNote(dir: string, absent: readonly (keyof ConfigRows)[]): string {
  const names = absent.map((key) => `${CONFIG_TABLE_NAMES[key]}.yaml`).join(', ');
  return (
    `note: ${dir} has no ${names}: what needs those tables is not checked here ` +
    "(config diff and config apply --dry-run check the tree with the database's)"
  );
}

/** What a database failure says, as `config failed:` and the warnings after an apply print it. */
type DescribeFailure = (err: unknown) => Promise<string>;

async function withDatabase(
  io: CliIo,
  run: (db: Database, describeFailure: DescribeFailure) => Promise<number>
): Promise<number> {
  const url = commandDatabaseUrl(io);
  if (url === null) return 2;
  const handle = openDatabase(url, { max: 2, application_name: 'convengine-config' }, MAINTENANCE_SESSION);
  try {
    return await run(handle.db, (err) => databaseFailure(handle.pool, err));
  } catch (err) {
    if (isEngineError(err) && Array.isArray(err.details?.violations)) {
      for (const v of err.details.violations as ConfigViolation[]) io.err(violationLine(v));
    }
    io.err(`config failed: ${await databaseFailure(handle.pool, err)}`);
    return 1;
  } finally {
    await handle.close();
  }
}

async function exportTree(db: Database, dir: string, io: CliIo): Promise<number> {
  const files = configToYaml(await readExactConfigRows(db));
  await mkdir(dir, { recursive: true });
  for (const [name, text] of files) await writeFile(join(dir, name), text, 'utf8');
  io.out(`exported ${files.size} tables to ${dir}`);
  return 0;
}

async function diffOrApply(
  db: Database,
  dir: string,
  io: CliIo,
  write: boolean,
  describeFailure: DescribeFailure
): Promise<number> {
  const tree = await readTree(dir, io);
  const engine = tree && (await loadEngineValidation());
  const compose: ComposeConfig = (current) => composeTree(tree!, io, engine!, current, 'tables');
  // An apply composes the tree with the tables as they are under the config write lock, not as read before it, and
  // prints what that transaction wrote: an apply that commits meanwhile is kept, and counted in neither.
  const outcome = !engine ? null : write ? await applyComposedConfig(db, compose) : await plannedApply(db, compose);
  if (!outcome) {
    // Said here, not by loadYamlTree: `config validate`, `whatif` and `start --config` apply nothing anyway.
    if (write) io.err('nothing was applied');
    return 1;
  }
  const { changes } = outcome;
  for (const change of changes) io.out(formatChange(change));
  // Each check on its own: one that cannot read (a GROUP BY over every conversation timing out, say) does not keep
  // the other, the turns parked on a changed tool, from being said.
  const checks: [CheckAfterApply, () => Promise<void>][] = [
    [STRANDED_CHECK, () => warnStranded(db, outcome.current, outcome.rows, io)],
    [
      PARKED_CHECK,
      () => warnParkedOnChangedTools(db, outcome.current, outcome.rows, changes, write ? 'applied' : 'planned', io),
    ],
  ];
  for (const [check, run] of checks) {
    // A plan whose checks fail fails whole: its author learns of it before applying. A made change is committed:
    // checks that fail after it are a warning, and the apply still succeeded (exit 0).
    if (!write) await run();
    else await run().catch(async (err: unknown) => io.err(checkAfterApplyFailed(check, await describeFailure(err))));
  }
  io.out(outcomeLine(outcome));
  return 0;
}

/** What a check after an apply reads, and the command that shows it instead. */
interface CheckAfterApply {
  what: string;
  command: string;
}
const STRANDED_CHECK: CheckAfterApply = { what: 'the conversations it may strand', command: 'convengine sre list' };
const PARKED_CHECK: CheckAfterApply = {
  what: 'the turns parked on its tools',
  command: 'convengine sre approvals, convengine sre list',
};

const checkAfterApplyFailed = ({ what, command }: CheckAfterApply, reason: string) =>
  `warning: the change is made, but ${what} could not be read: ${reason}; check them yourself (${command})`;

/** What a diff or an apply says last: a plan (`config diff`, `--dry-run`) has no version, it wrote nothing. */
function outcomeLine({ changes, version, written }: ApplyPlan & Partial<ComposedApply>): string {
  if (version === undefined)
    return changes.length === 0 ? 'no changes' : `${changes.length} change(s); nothing written`;
  return written
    ? `applied ${changes.length} change(s); config version ${version}`
    : `no changes; config version ${version} kept`;
}

type ApplyPlan = Omit<ComposedApply, 'version' | 'written'>;

/** What applying would do (`config diff`, `apply --dry-run`): the tree composed with the tables as they are now. */
async function plannedApply(db: Database, compose: ComposeConfig): Promise<ApplyPlan | null> {
  const current = await readExactConfigRows(db);
  const rows = compose(current);
  return rows && { current, rows, changes: diffConfig(current, rows) };
}

async function warnStranded(db: Database, current: ConfigRows, rows: ConfigRows, io: CliIo): Promise<void> {
  for (const at of strandedConversations(current, rows, await conversationsByState(db))) io.err(strandedWarning(at));
}

export const configCommand: CliCommand = {
  usage: USAGE,
  async run(args, io) {
    const parsed = parseCommandArgs('config', args, { values: [], flags: ['dry-run', 'complete'] });
    if (typeof parsed === 'string') return usageError(io, parsed, USAGE);
    const [action, dir, ...extra] = parsed.positional;
    const dryRun = parsed.options.has('dry-run');
    if (!action || !dir) return usageError(io, 'name an action and a directory', USAGE);
    if (extra.length > 0) return usageError(io, `config: unexpected argument(s): ${extra.join(' ')}`, USAGE);
    if (dryRun && action !== 'apply') return usageError(io, `config ${action}: --dry-run is only for apply`, USAGE);
    const complete = parsed.options.has('complete');
    if (complete && action !== 'validate') {
      return usageError(io, `config ${action}: --complete is only for validate`, USAGE);
    }
    switch (action) {
      case 'export':
        return withDatabase(io, (db) => exportTree(db, dir, io));
      case 'diff':
        return withDatabase(io, (db, describeFailure) => diffOrApply(db, dir, io, false, describeFailure));
      case 'apply':
        return withDatabase(io, (db, describeFailure) => diffOrApply(db, dir, io, !dryRun, describeFailure));
      case 'validate': {
        const rows = await loadYamlTree(dir, io, undefined, complete ? 'rows' : 'tables');
        if (rows) io.out(`config valid: ${dir}`);
        return rows ? 0 : 1;
      }
      default:
        return usageError(io, `unknown action "${action}" (export, diff, apply, validate)`, USAGE);
    }
  },
};
