import { commandDatabaseUrl } from '../database-url';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { formatViolation, type ConfigRows, type ConfigViolation } from '../../core/config/types';
import { validateConfig } from '../../core/config/validate';
import { isEngineError } from '../../core/errors';
import { applyConfigRows } from '../../db/config/apply';
import { readConfigRows } from '../../db/config/load';
import {
  configToYaml,
  diffConfig,
  formatChange,
  overlayConfigRows,
  yamlToConfig,
  type YamlFiles,
} from '../../db/config/yaml-tree';
import { openDatabase, type Database } from '../../db/pool';
import { parseOptions, type CliCommand, type CliIo } from '../command';

const USAGE = [
  'convengine config export <dir>            write every ce_* config table as <dir>/<table>.yaml',
  'convengine config diff <dir>              what applying <dir> would change in DATABASE_URL',
  'convengine config apply <dir> [--dry-run] validate all of <dir>, then replace the config in one transaction',
  'convengine config validate <dir>          validate <dir> on its own (no database)',
  '',
  'apply refuses the whole set, naming each bad row, if anything is invalid; otherwise it writes every',
  'table in one transaction (rows missing from <dir> are deleted), which bumps the config version, and',
  'prints the diff. Running turns keep the config version they started with. Exit codes: 0 ok,',
  '1 invalid config or failure, 2 usage.',
].join('\n');

/** Reads every `*.yaml` file of a directory. */
export async function readYamlTree(dir: string): Promise<YamlFiles> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.yaml')).sort();
  const files: YamlFiles = new Map();
  for (const name of names) files.set(name, await readFile(join(dir, name), 'utf8'));
  return files;
}

/**
 * A YAML tree as config rows; prints every problem and returns null when there is one. With
 * `base`, what is validated is the base rows with the tree laid over them.
 */
export async function loadYamlTree(dir: string, io: CliIo, base?: ConfigRows): Promise<ConfigRows | null> {
  const { rows, errors } = yamlToConfig(await readYamlTree(dir));
  for (const e of errors) io.err(`${e.file}: ${e.message}`);
  if (errors.length > 0) return null;
  const result = validateConfig(base ? overlayConfigRows(base, rows) : rows);
  for (const w of result.warnings) io.err(`warning: ${formatViolation(w)}`);
  for (const v of result.violations) io.err(formatViolation(v));
  if (result.violations.length > 0) {
    io.err(`config invalid: ${result.violations.length} violation(s); nothing was applied`);
    return null;
  }
  return rows;
}

async function withDatabase(io: CliIo, run: (db: Database) => Promise<number>): Promise<number> {
  const url = commandDatabaseUrl(io);
  if (url === null) return 2;
  const handle = openDatabase(url, { max: 2 });
  try {
    return await run(handle.db);
  } catch (err) {
    if (isEngineError(err) && Array.isArray(err.details?.violations)) {
      for (const v of err.details.violations as ConfigViolation[]) io.err(formatViolation(v));
    }
    io.err(`config failed: ${(err as Error).message.split('\n')[0]}`);
    return 1;
  } finally {
    await handle.close();
  }
}

async function exportTree(db: Database, dir: string, io: CliIo): Promise<number> {
  const files = configToYaml(await readConfigRows(db));
  await mkdir(dir, { recursive: true });
  for (const [name, text] of files) await writeFile(join(dir, name), text, 'utf8');
  io.out(`exported ${files.size} tables to ${dir}`);
  return 0;
}

async function diffOrApply(db: Database, dir: string, io: CliIo, write: boolean): Promise<number> {
  const rows = await loadYamlTree(dir, io);
  if (!rows) return 1;
  const changes = diffConfig(await readConfigRows(db), rows);
  for (const change of changes) io.out(formatChange(change));
  if (!write) {
    io.out(changes.length === 0 ? 'no changes' : `${changes.length} change(s); nothing written`);
    return 0;
  }
  const { version } = await applyConfigRows(db, rows);
  io.out(`applied ${changes.length} change(s); config version ${version}`);
  return 0;
}

export const configCommand: CliCommand = {
  usage: USAGE,
  async run(args, io) {
    const { positional, options } = parseOptions(args);
    const [action, dir, ...extra] = positional;
    const dryRun = options.has('dry-run');
    const unknown = [...options.keys()].filter((k) => !(k === 'dry-run' && action === 'apply'));
    if (!action || !dir || extra.length > 0 || unknown.length > 0) {
      io.err(unknown.length > 0 ? `unknown option --${unknown[0]}` : 'name an action and a directory');
      io.err(`Usage:\n${USAGE}`);
      return 2;
    }
    switch (action) {
      case 'export':
        return withDatabase(io, (db) => exportTree(db, dir, io));
      case 'diff':
        return withDatabase(io, (db) => diffOrApply(db, dir, io, false));
      case 'apply':
        return withDatabase(io, (db) => diffOrApply(db, dir, io, !dryRun));
      case 'validate': {
        const rows = await loadYamlTree(dir, io);
        if (rows) io.out(`config valid: ${dir}`);
        return rows ? 0 : 1;
      }
      default:
        io.err(`unknown action "${action}" (export, diff, apply, validate)`);
        return 2;
    }
  },
};
