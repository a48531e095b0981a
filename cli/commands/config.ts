import { loadEngineValidation } from '../../activities/runtime/config-validation';
import { commandDatabaseUrl } from '../environment';
import { constants, type Dirent, type Stats } from 'node:fs';
import { mkdir, open, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CONFIG_TABLE_NAMES } from '../../core/config/rows';
import { strandedConversations } from '../../core/config/stranded';
import { formatViolation, type ConfigRows, type ConfigViolation } from '../../core/config/types';
import type { ValidationOptions } from '../../core/config/validation/context';
import { validateConfig } from '../../core/config/validate';
import { isEngineError } from '../../core/errors';
import { bytePosition, firstInvalidUtf8 } from '../../core/text/utf8-offset';
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
import { MAINTENANCE_SESSION, openDatabase, type Database } from '../../db/pool';
import { conversationsByState } from '../../db/repositories/conversation';
import { parseCommandArgs, usageError, type CliCommand, type CliIo } from '../command';
import { databaseFailure } from '../database-failure';

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
  'and state that a response answers now and none would after the change: their next turn fails with',
  'RESPONSE_MAPPING_NOT_FOUND. Exit codes: 0 ok, 1 invalid config or failure, 2 usage.',
].join('\n');

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Names an author gives a table file that the loader would not read: said, as the table would silently be kept. */
const MISNAMED = /\.(ya?ml|json)$/i;

/**
 * The largest table file read: 16 MiB holds tens of thousands of rows, and parsing YAML takes many times its size
 * in memory (a 96 MB file ran the CLI out of heap). A larger file is refused before it is read.
 */
export const TABLE_FILE_MAX_BYTES = 16 * 1024 * 1024;

/** What `readYamlTree` makes of one directory entry: read it, refuse it, or say it is not read. */
type EntryVerdict = 'read' | 'skip' | { error: string } | { warning: string };

/** What an entry that is not a regular file is, in the words of an error. */
function kindOf(entry: Dirent | Stats): string {
  if (entry.isDirectory()) return 'a directory';
  if (entry.isCharacterDevice()) return 'a character device';
  if (entry.isBlockDevice()) return 'a block device';
  if (entry.isFIFO()) return 'a named pipe (FIFO)';
  if (entry.isSocket()) return 'a socket';
  return 'something other than a file';
}

/**
 * A symbolic link counts as what it points to: a Kubernetes ConfigMap mounts every file as one (through `..data/`),
 * and a tree may link a shared table file. One that points nowhere is an error, not a table silently kept; so is a
 * table file name (`*.yaml`, `*.yml`, `*.json`) on a directory, device, pipe or socket.
 */
async function entryVerdict(dir: string, entry: Dirent): Promise<EntryVerdict> {
  const name = entry.name;
  if (name.startsWith('.')) return 'skip'; // .gitkeep, .DS_Store, an editor's swap file, a ConfigMap's ..data
  let target: Dirent | Stats = entry;
  if (entry.isSymbolicLink()) {
    const resolved = await stat(join(dir, name)).catch(() => null);
    if (resolved === null) return { error: `${name}: a symbolic link to nothing that can be read` };
    target = resolved;
  }
  if (!target.isFile()) {
    const kind = `${entry.isSymbolicLink() ? 'a symbolic link to ' : ''}${kindOf(target)}`;
    if (MISNAMED.test(name)) return { error: `${name}: not read: ${kind}, not a file` };
    return { warning: `${name}: not read (${kind}: a config tree holds only <table>.yaml files)` };
  }
  if (name.endsWith('.yaml')) return 'read';
  if (MISNAMED.test(name)) {
    return { error: `${name}: not read: table files end in .yaml (rename it ${name.replace(MISNAMED, '.yaml')})` };
  }
  return { warning: `${name}: not read (a config tree holds only <table>.yaml files)` };
}

/** Where a file that is not UTF-8 first goes wrong: a Latin-1 é in a description, a UTF-16 file's first byte. */
function notUtf8(bytes: Uint8Array): string {
  const offset = firstInvalidUtf8(bytes);
  const { line, column } = bytePosition(bytes, offset);
  const byte = (bytes[offset] ?? 0).toString(16).toUpperCase().padStart(2, '0');
  return `is not UTF-8 text: byte 0x${byte} at byte offset ${offset} (line ${line}, column ${column}) starts no well-formed UTF-8 character; save the file as UTF-8`;
}

/** One table file as UTF-8 text, its size checked on the open file before a byte is read; else why not. */
async function readTableFile(dir: string, name: string): Promise<string | { error: string }> {
  const handle = await open(join(dir, name), constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const { size } = await handle.stat();
    if (size > TABLE_FILE_MAX_BYTES) {
      const mib = TABLE_FILE_MAX_BYTES / (1024 * 1024);
      return { error: `${name}: ${size} bytes, more than a table file may hold (${mib} MiB); not read` };
    }
    const bytes = await handle.readFile();
    try {
      return UTF8.decode(bytes);
    } catch {
      return { error: `${name}: ${notUtf8(bytes)}` };
    }
  } finally {
    await handle.close();
  }
}

/**
 * Reads every `*.yaml` file of a directory, as UTF-8: bytes that are not (a Latin-1 or UTF-16
 * file) are refused here rather than stored as U+FFFD, and so is a table file under another
 * extension (`ce_intent.yml`), which would otherwise be left out unseen. Any other file is passed
 * to `warn`. Throws every problem at once, one line each.
 */
export async function readYamlTree(dir: string, warn: (line: string) => void = () => {}): Promise<YamlFiles> {
  let entries: Dirent[];
  try {
    entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new Error(`cannot read the directory ${dir} (${code})`, { cause: err });
  }
  const files: YamlFiles = new Map();
  const errors: string[] = [];
  for (const entry of entries) {
    const verdict = await entryVerdict(dir, entry);
    if (verdict === 'skip') continue;
    if (verdict !== 'read') {
      if ('error' in verdict) errors.push(verdict.error);
      else warn(verdict.warning);
      continue;
    }
    const text = await readTableFile(dir, entry.name).catch((err: NodeJS.ErrnoException) => ({
      error: `${entry.name}: cannot be read (${err.code ?? 'error'})`,
    }));
    if (typeof text === 'string') files.set(entry.name, text);
    else errors.push(text.error);
  }
  if (errors.length > 0) throw new Error(errors.join('\n'));
  return files;
}

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
    files = await readYamlTree(dir, (line) => io.err(`warning: ${line}`));
  } catch (err) {
    io.err((err as Error).message);
    return null;
  }
  if (files.size === 0) {
    io.err(`${dir}: no *.yaml files (write a tree with: convengine config export ${dir})`);
    return null;
  }
  const { rows, errors } = yamlToConfig(files);
  for (const e of errors) io.err(`${e.file}: ${e.message}`);
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
  for (const w of result.warnings) io.err(`warning: ${formatViolation(w)}`);
  for (const v of result.violations) io.err(formatViolation(v));
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

async function withDatabase(io: CliIo, run: (db: Database) => Promise<number>): Promise<number> {
  const url = commandDatabaseUrl(io);
  if (url === null) return 2;
  const handle = openDatabase(url, { max: 2, application_name: 'convengine-config' }, MAINTENANCE_SESSION);
  try {
    return await run(handle.db);
  } catch (err) {
    if (isEngineError(err) && Array.isArray(err.details?.violations)) {
      for (const v of err.details.violations as ConfigViolation[]) io.err(formatViolation(v));
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

async function diffOrApply(db: Database, dir: string, io: CliIo, write: boolean): Promise<number> {
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
  await warnStranded(db, outcome.current, outcome.rows, io);
  io.out(outcomeLine(outcome));
  return 0;
}

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
  for (const at of strandedConversations(current, rows, await conversationsByState(db))) {
    io.err(
      `warning: ${at.conversations} conversation(s) in intent ${at.intent}, state ${at.state} have a response now and ` +
        'none after this change: their next turn fails with RESPONSE_MAPPING_NOT_FOUND unless a rule moves them on'
    );
  }
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
        return withDatabase(io, (db) => diffOrApply(db, dir, io, false));
      case 'apply':
        return withDatabase(io, (db) => diffOrApply(db, dir, io, !dryRun));
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
