/**
 * Optional persistence: an append-only JSON-lines file. Each history event is appended once (its
 * protobuf bytes, base64), each changed run appends a snapshot of its mutable state (without
 * history) at the end of the transition, and the registry of search attributes is appended when it
 * changes. Writes are synchronous and batched per turn of the event loop, before any response
 * reaches the network. Loading replays the file; compaction rewrites it with one snapshot per run.
 */
import * as path from 'node:path';
import { DevServerError } from '../errors';
import { decodeMessage, protoType } from '../proto/codec';
import type { Header, HistoryEvent, Payloads } from '../proto/types';
import type { SearchAttributeType } from './search-attributes';
import { JournalAppender, parseJournal, realFs, removeQuietly, writeAll, type JournalFs } from './journal-file';
import { eventAt, packEncodedHistory, type ActivityState, type RunState } from './state';

const HISTORY_EVENT = protoType('temporal.api.history.v1.HistoryEvent');
const FORMAT_VERSION = 1;
const MIN_COMPACTION_BYTES = 16 * 1024 * 1024;

/** `closeAttempted` stays in memory, as on the real server: a restart forgets it. */
type RunSnapshot = Omit<RunState, 'history' | 'encodedHistory' | 'closeAttempted'>;

type Record =
  | { t: 'header'; v: number; namespace: string }
  | { t: 'sa'; attributes: { [name: string]: SearchAttributeType } }
  | { t: 'event'; r: string; b: string }
  | { t: 'run'; s: RunSnapshot }
  | { t: 'delete'; r: string };

/** Buffers become {$b: base64} so payloads survive JSON. */
function replacer(this: unknown, key: string, value: unknown): unknown {
  const raw = (this as { [k: string]: unknown })[key];
  if (raw instanceof Uint8Array)
    return { $b: Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64') };
  return value;
}

function reviver(_key: string, value: unknown): unknown {
  if (value && typeof value === 'object' && '$b' in value && Object.keys(value).length === 1) {
    return Buffer.from(String((value as { $b: unknown }).$b), 'base64');
  }
  return value;
}

/**
 * A pending activity's input and header are those of its ActivityTaskScheduled event, already in the journal: the
 * snapshot, written again at every transition of the run, leaves them out (they were 40 % of the journal's appends
 * on turn-shaped runs, scripts/devserver-memory.ts) and loading takes them from the event.
 */
type ActivitySnapshot = Omit<ActivityState, 'input' | 'header'> & Partial<Pick<ActivityState, 'input' | 'header'>>;

function snapshotOf(run: RunState): RunSnapshot {
  const { history: _history, encodedHistory: _encoded, closeAttempted: _closing, activities, ...snapshot } = run;
  const lean: { [key: string]: ActivitySnapshot } = {};
  for (const [key, { input: _input, header: _header, ...activity }] of Object.entries(activities)) lean[key] = activity;
  return { ...snapshot, activities: lean as { [key: string]: ActivityState } };
}

/** Gives the activities of a loaded run the input and header of their scheduled events (see ActivitySnapshot). */
function restoreActivityPayloads(run: RunState): void {
  for (const activity of Object.values(run.activities) as ActivitySnapshot[]) {
    if ('input' in activity || 'header' in activity) continue; // a snapshot written before they were left out
    const scheduled = eventAt(run, activity.scheduledEventId - 1)?.activityTaskScheduledEventAttributes;
    if (scheduled?.input) activity.input = scheduled.input as Payloads;
    if (scheduled?.header) activity.header = scheduled.header as Header;
  }
}

export interface LoadedState {
  runs: RunState[];
  searchAttributes?: { [name: string]: SearchAttributeType };
}

export interface StoreOptions {
  /** What a restart skipped (a torn last line) and a journal written again after failing. Default: nothing. */
  onWarning?: (message: string) => void;
  /** Tests give a file system whose writes fail. */
  fs?: JournalFs;
}

export class PersistentStore {
  private lines: string[] = [];
  private readonly dirtyRuns = new Map<string, RunState>();
  private flushScheduled = false;
  private bytesSinceCompaction = 0;
  private compactedBytes = 0;
  /** A run deleted on request is still in the file's earlier lines: the next housekeeping rewrites it. */
  private erasurePending = false;
  private readonly fs: JournalFs;
  private readonly appender: JournalAppender;

  constructor(
    readonly filePath: string,
    private readonly namespace: string,
    onError: (error: unknown) => void,
    private readonly options: StoreOptions = {}
  ) {
    this.fs = options.fs ?? realFs;
    this.appender = new JournalAppender(this.fs, filePath, {
      // Reported once: every call and timer tries the write again while the disk stays full.
      failed: (error, first) => {
        if (first) onError(new Error(this.failureMessage() ?? '', { cause: error }));
      },
      writtenAgain: () =>
        options.onWarning?.(`the dev server's journal ${filePath} is written again; it serves calls again`),
    });
  }

  recordEvent(runId: string, encoded: Buffer): void {
    this.lines.push(JSON.stringify({ t: 'event', r: runId, b: encoded.toString('base64') }));
    this.scheduleFlush();
  }

  recordRun(run: RunState): void {
    this.dirtyRuns.set(run.runId, run);
    this.scheduleFlush();
  }

  recordDeletion(runId: string): void {
    this.dirtyRuns.delete(runId);
    this.lines.push(JSON.stringify({ t: 'delete', r: runId }));
    this.scheduleFlush();
  }

  recordSearchAttributes(attributes: Map<string, SearchAttributeType>): void {
    this.lines.push(JSON.stringify({ t: 'sa', attributes: Object.fromEntries(attributes) }));
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    // A microtask runs before the event loop hands any response bytes to the socket.
    queueMicrotask(() => this.flush());
  }

  /**
   * Appends what was recorded, after what an earlier write failed to append. A write that fails is cut back (no torn
   * line stays for later appends to follow) and kept to be written again: memory is ahead of the file until a write
   * succeeds, and `commit` refuses every call meanwhile, so nothing the file lacks is acknowledged.
   */
  flush(): void {
    this.flushScheduled = false;
    for (const run of this.dirtyRuns.values())
      this.lines.push(JSON.stringify({ t: 'run', s: snapshotOf(run) }, replacer));
    this.dirtyRuns.clear();
    const text = this.lines.length > 0 ? this.lines.join('\n') + '\n' : '';
    this.lines = [];
    this.bytesSinceCompaction += this.appender.append(text);
  }

  /**
   * Writes what is recorded now, and throws UNAVAILABLE while the journal cannot be written: an answer must not
   * acknowledge what a restart would not find. The SDK retries UNAVAILABLE.
   */
  commit(): void {
    this.flush();
    const failure = this.failureMessage();
    if (failure !== null) throw new DevServerError('UNAVAILABLE', failure);
  }

  /** Why the journal cannot be written, or null while the file holds everything recorded. */
  failureMessage(): string | null {
    const failure = this.appender.failure;
    if (!failure) return null;
    return (
      `the dev server cannot write its journal ${this.filePath} (${failure.message}); it refuses every call ` +
      'until a write succeeds again (free disk space), and keeps what it has not written meanwhile'
    );
  }

  /** True when the log has grown enough that rewriting it pays off. */
  needsCompaction(): boolean {
    return this.erasurePending || this.bytesSinceCompaction > Math.max(MIN_COMPACTION_BYTES, this.compactedBytes);
  }

  /**
   * A run deleted by DeleteWorkflowExecution (an operator's erasure of a conversation) must leave the disk at the next
   * housekeeping, not at the next compaction the file's growth asks for: until then its events are in the file.
   * Runs past retention go with the growth-driven compaction, as a steady stream of them would rewrite the file at
   * every housekeeping.
   */
  requestErasure(): void {
    this.erasurePending = true;
  }

  /**
   * Rewrites the file as one header, the registry, and every run's events plus one snapshot: all that memory holds,
   * so what an earlier write failed to append is in it. A rewrite that fails leaves the file as it was and removes
   * its temporary file.
   */
  compact(runs: Iterable<RunState>, searchAttributes: Map<string, SearchAttributeType>): void {
    this.flush();
    const temporary = `${this.filePath}.compact-${process.pid}`;
    let bytes: number;
    try {
      bytes = this.writeCompacted(temporary, runs, searchAttributes);
      this.fs.renameSync(temporary, this.filePath);
    } catch (error) {
      removeQuietly(this.fs, temporary);
      throw error;
    }
    this.appender.rewritten(bytes);
    this.compactedBytes = bytes;
    this.bytesSinceCompaction = 0;
    this.erasurePending = false;
  }

  private writeCompacted(
    temporary: string,
    runs: Iterable<RunState>,
    searchAttributes: Map<string, SearchAttributeType>
  ): number {
    const fd = this.fs.openSync(temporary, 'w');
    let bytes = 0;
    const write = (record: Record, withReplacer = false): void => {
      const line = Buffer.from(JSON.stringify(record, withReplacer ? replacer : undefined) + '\n');
      writeAll(this.fs, fd, line);
      bytes += line.length;
    };
    try {
      write({ t: 'header', v: FORMAT_VERSION, namespace: this.namespace });
      write({ t: 'sa', attributes: Object.fromEntries(searchAttributes) });
      for (const run of runs) {
        for (const encoded of run.encodedHistory) write({ t: 'event', r: run.runId, b: encoded.toString('base64') });
        write({ t: 'run', s: snapshotOf(run) }, true);
      }
      this.fs.fsyncSync(fd);
    } finally {
      this.fs.closeSync(fd);
    }
    return bytes;
  }

  /**
   * Reads the file (if any). A torn last line (a crash mid-write) is skipped with a warning, and the next append
   * replaces it; a corrupt line before it throws CorruptJournalError, which says how to repair the file.
   */
  load(): LoadedState {
    if (!this.fs.existsSync(this.filePath)) {
      this.fs.mkdirSync(path.dirname(path.resolve(this.filePath)), { recursive: true });
      return { runs: [] };
    }
    const text = this.fs.readFileSync(this.filePath, 'utf8');
    const { records, tornLastLine } = parseJournal<Record>(this.filePath, text, reviver);
    const whole = tornLastLine === undefined ? text : text.slice(0, text.lastIndexOf('\n', text.length - 2) + 1);
    this.appender.loaded(Buffer.byteLength(whole), tornLastLine !== undefined);
    if (tornLastLine !== undefined) {
      this.options.onWarning?.(
        `${this.filePath}:${tornLastLine}: skipped a torn last line, the end of a write a crash or a full disk cut short`
      );
    }
    const events = new Map<string, Buffer[]>();
    const snapshots = new Map<string, RunSnapshot>();
    let searchAttributes: LoadedState['searchAttributes'];
    for (const record of records) applyRecord(record, events, snapshots, (sa) => (searchAttributes = sa));
    return { runs: buildRuns(events, snapshots), searchAttributes };
  }
}

function applyRecord(
  record: Record,
  events: Map<string, Buffer[]>,
  snapshots: Map<string, RunSnapshot>,
  setSearchAttributes: (sa: { [name: string]: SearchAttributeType }) => void
): void {
  switch (record.t) {
    case 'event': {
      const list = events.get(record.r) ?? [];
      list.push(Buffer.from(record.b, 'base64'));
      events.set(record.r, list);
      break;
    }
    case 'run':
      snapshots.set(record.s.runId, record.s);
      break;
    case 'delete':
      snapshots.delete(record.r);
      events.delete(record.r);
      break;
    case 'sa':
      setSearchAttributes(record.attributes);
      break;
    default:
      break;
  }
}

function buildRuns(events: Map<string, Buffer[]>, snapshots: Map<string, RunSnapshot>): RunState[] {
  const runs: RunState[] = [];
  for (const snapshot of snapshots.values()) {
    const encodedHistory = packEncodedHistory(events.get(snapshot.runId) ?? []);
    // A closed run decodes an event only when one is read (state.ts releaseClosedHistory).
    const history =
      snapshot.closeTime === undefined
        ? encodedHistory.map((bytes) => decodeMessage(HISTORY_EVENT, bytes) as unknown as HistoryEvent)
        : [];
    const run: RunState = { ...snapshot, history, encodedHistory };
    restoreActivityPayloads(run);
    runs.push(run);
  }
  return runs.sort((a, b) => a.createdSeq - b.createdSeq);
}
