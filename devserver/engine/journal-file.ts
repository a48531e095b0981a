/**
 * The journal's file operations: appends that leave no torn line behind when a write fails (a full disk), reading it
 * back line by line, and the repair `convengine devserver --repair-journal` runs on a file with a corrupt line.
 * The file system is a parameter so tests can make a write fail after a number of bytes, as ENOSPC does.
 */
import * as nodeFs from 'node:fs';

/** The calls of `node:fs` the journal makes. */
export type JournalFs = Pick<
  typeof nodeFs,
  | 'openSync'
  | 'writeSync'
  | 'fsyncSync'
  | 'closeSync'
  | 'ftruncateSync'
  | 'renameSync'
  | 'unlinkSync'
  | 'readFileSync'
  | 'writeFileSync'
  | 'copyFileSync'
  | 'existsSync'
  | 'mkdirSync'
  | 'statSync'
>;

export const realFs: JournalFs = nodeFs;

/** Writes all of `bytes` at `position` (a write may take only part of them, as one that meets a full disk). */
export function writeAll(fs: JournalFs, fd: number, bytes: Buffer, position?: number): void {
  for (let written = 0; written < bytes.length;) {
    const at = position === undefined ? null : position + written;
    written += fs.writeSync(fd, bytes, written, bytes.length - written, at);
  }
}

/**
 * Writes `bytes` where a file's last whole line ends (`end`), and returns the new end. A write that fails is cut back
 * to `end` before the error is thrown, so no torn line stays in the file for later appends to follow; `cutFirst`
 * makes the file end at `end` before anything is written (a cut that failed, a torn line a restart skipped).
 */
function appendAt(fs: JournalFs, file: string, end: number, bytes: Buffer, cutFirst: boolean): number {
  const fd = fs.openSync(file, nodeFs.constants.O_WRONLY | nodeFs.constants.O_CREAT);
  try {
    if (cutFirst) fs.ftruncateSync(fd, end);
    try {
      writeAll(fs, fd, bytes, end);
    } catch (error) {
      fs.ftruncateSync(fd, end);
      throw error;
    }
  } finally {
    fs.closeSync(fd);
  }
  return end + bytes.length;
}

/**
 * Appends to the journal. A write that fails is cut back and its text kept: the next append writes it first, so
 * once one succeeds the file holds everything appended, in order, and nothing torn between.
 */
export class JournalAppender {
  /** Where the file's last whole line ends: known from the first append, load or rewrite on. */
  private goodEnd: number | undefined;
  /** The file may hold bytes past goodEnd (a write that failed and could not be cut back, a torn last line). */
  private tailToCut = false;
  private unwritten = '';
  /** Why the last write failed; undefined while the file holds everything appended. */
  failure: Error | undefined;

  constructor(
    private readonly fs: JournalFs,
    private readonly file: string,
    private readonly events: { failed(error: Error, first: boolean): void; writtenAgain(): void }
  ) {}

  /** Appends `text` after what failed to be written before; the bytes written, 0 when nothing was. */
  append(text: string): number {
    this.unwritten += text;
    if (this.unwritten === '') return 0;
    const bytes = Buffer.from(this.unwritten);
    try {
      this.goodEnd ??= sizeOf(this.fs, this.file);
      this.goodEnd = appendAt(this.fs, this.file, this.goodEnd, bytes, this.tailToCut);
    } catch (error) {
      this.tailToCut = true; // appendAt cut it back, unless that failed too
      const first = !this.failure;
      this.failure = error instanceof Error ? error : new Error(String(error));
      this.events.failed(this.failure, first);
      return 0;
    }
    this.tailToCut = false;
    this.unwritten = '';
    if (this.failure) {
      this.failure = undefined;
      this.events.writtenAgain();
    }
    return bytes.length;
  }

  /** The file was replaced by one of `end` bytes that holds everything (a compaction). */
  rewritten(end: number): void {
    const failed = this.failure;
    this.goodEnd = end;
    this.tailToCut = false;
    this.unwritten = '';
    this.failure = undefined;
    if (failed) this.events.writtenAgain();
  }

  /** The file as loaded: its whole lines end at `end`, and a torn line may follow. */
  loaded(end: number, torn: boolean): void {
    this.goodEnd = end;
    this.tailToCut = torn;
  }
}

/** The size of a file, 0 when there is none. */
export function sizeOf(fs: JournalFs, file: string): number {
  return fs.existsSync(file) ? fs.statSync(file).size : 0;
}

/** The first line of the journal that does not parse, with every line after it. */
export class CorruptJournalError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    reason: string
  ) {
    super(
      `${file}:${line}: corrupt record (${reason}). Every record before line ${line} is intact: ` +
        `\`npx convengine devserver --repair-journal ${file}\` keeps them and drops line ${line} and everything after ` +
        `it (the file as it is now is kept beside it as ${file}.corrupt-<time>), then start again. Moving the file ` +
        'away starts the dev server empty instead.'
    );
    this.name = 'CorruptJournalError';
  }
}

export interface JournalLines<R> {
  records: R[];
  /** The last line, torn by a crash or a failed write mid-line: ignored. */
  tornLastLine?: number;
}

/** Parses every line of a journal's text. A torn last line is left out; a corrupt one before it is an error. */
export function parseJournal<R>(file: string, text: string, reviver: (key: string, value: unknown) => unknown) {
  const lines = text.split('\n');
  const parsed: JournalLines<R> = { records: [] };
  lines.forEach((line, index) => {
    if (!line.trim()) return;
    try {
      parsed.records.push(JSON.parse(line, reviver) as R);
    } catch (error) {
      // A file ending in a newline has an empty line after its last one.
      if (index >= lines.length - 2) parsed.tornLastLine = index + 1;
      else throw new CorruptJournalError(file, index + 1, (error as Error).message);
    }
  });
  return parsed;
}

export interface RepairReport {
  /** Lines kept (blank ones included), and the first one dropped, or null when nothing was corrupt. */
  keptLines: number;
  firstDroppedLine: number | null;
  droppedLines: number;
  /** Where the file as it was went; null when it was not changed. */
  backup: string | null;
}

/**
 * Keeps every line before the first that does not parse and drops the rest. What follows a corrupt line cannot be
 * kept: it was written after events that are lost, and a run whose history has a gap cannot be replayed. The lines
 * kept are a state the server could have crashed in. The file as it was is kept as `<file>.corrupt-<time>`.
 */
export function repairJournal(file: string, fs: JournalFs = realFs, now = Date.now()): RepairReport {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const bad = lines.findIndex((line) => {
    if (!line.trim()) return false;
    try {
      JSON.parse(line);
      return false;
    } catch {
      return true;
    }
  });
  if (bad === -1) return { keptLines: lines.length - 1, firstDroppedLine: null, droppedLines: 0, backup: null };
  const backup = `${file}.corrupt-${new Date(now).toISOString().replace(/[:.]/g, '-')}`;
  fs.copyFileSync(file, backup);
  const kept = lines.slice(0, bad);
  const temporary = `${file}.repair-${process.pid}`;
  try {
    fs.writeFileSync(temporary, kept.map((line) => `${line}\n`).join(''));
    fs.renameSync(temporary, file);
  } catch (error) {
    removeQuietly(fs, temporary);
    throw error;
  }
  const dropped = lines.slice(bad).filter((line) => line.trim()).length;
  return { keptLines: kept.length, firstDroppedLine: bad + 1, droppedLines: dropped, backup };
}

/** Removes a file if it is there; a failure to is not worth more than the error being reported. */
export function removeQuietly(fs: JournalFs, file: string): void {
  try {
    fs.unlinkSync(file);
  } catch {
    // Already gone, or cannot be removed: the caller reports the error that matters.
  }
}
