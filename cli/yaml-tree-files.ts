import { constants, type Dirent, type Stats } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { bytePosition, firstInvalidUtf8 } from '../core/text/utf8-offset';
import type { YamlFiles } from '../db/config/yaml-tree';

/*
 * Reading a config tree's directory (`config validate|diff|apply`, `start --config`, `whatif`): which entries are
 * table files, and each one's text, refused with a reason when it cannot be a table file. What the rows in them
 * mean is yaml-tree.ts's; composing and validating them is cli/commands/config.ts's.
 */

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

/** Every problem of a tree's files, one each: a file's name is the author's (any text), so each is printed alone. */
export class YamlTreeFilesError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'YamlTreeFilesError';
  }
}

/**
 * Reads every `*.yaml` file of a directory, as UTF-8: bytes that are not (a Latin-1 or UTF-16
 * file) are refused here rather than stored as U+FFFD, and so is a table file under another
 * extension (`ce_intent.yml`), which would otherwise be left out unseen. Any other file is passed
 * to `warn`. Throws every problem at once (YamlTreeFilesError).
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
  if (errors.length > 0) throw new YamlTreeFilesError(errors);
  return files;
}
