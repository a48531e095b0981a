/**
 * Optional persistence: an append-only JSON-lines file. Each history event is appended once (its
 * protobuf bytes, base64), each changed run appends a snapshot of its mutable state (without
 * history) at the end of the transition, and the registry of search attributes is appended when it
 * changes. Writes are synchronous and batched per turn of the event loop, before any response
 * reaches the network. Loading replays the file; compaction rewrites it with one snapshot per run.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { decodeMessage, protoType } from '../proto/codec';
import type { Header, HistoryEvent, Payloads } from '../proto/types';
import type { SearchAttributeType } from './search-attributes';
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

export class PersistentStore {
  private lines: string[] = [];
  private readonly dirtyRuns = new Map<string, RunState>();
  private flushScheduled = false;
  private bytesSinceCompaction = 0;
  private compactedBytes = 0;
  /** A run deleted on request is still in the file's earlier lines: the next housekeeping rewrites it. */
  private erasurePending = false;

  constructor(
    readonly filePath: string,
    private readonly namespace: string,
    private readonly onError: (error: unknown) => void
  ) {}

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

  flush(): void {
    this.flushScheduled = false;
    for (const run of this.dirtyRuns.values())
      this.lines.push(JSON.stringify({ t: 'run', s: snapshotOf(run) }, replacer));
    this.dirtyRuns.clear();
    if (this.lines.length === 0) return;
    const chunk = this.lines.join('\n') + '\n';
    this.lines = [];
    try {
      fs.appendFileSync(this.filePath, chunk);
      this.bytesSinceCompaction += chunk.length;
    } catch (error) {
      this.onError(error);
    }
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

  /** Rewrites the file as one header, the registry, and every run's events plus one snapshot. */
  compact(runs: Iterable<RunState>, searchAttributes: Map<string, SearchAttributeType>): void {
    this.flush();
    const temporary = `${this.filePath}.compact-${process.pid}`;
    const fd = fs.openSync(temporary, 'w');
    let bytes = 0;
    const write = (record: Record, withReplacer = false): void => {
      const line = JSON.stringify(record, withReplacer ? replacer : undefined) + '\n';
      fs.writeSync(fd, line);
      bytes += line.length;
    };
    try {
      write({ t: 'header', v: FORMAT_VERSION, namespace: this.namespace });
      write({ t: 'sa', attributes: Object.fromEntries(searchAttributes) });
      for (const run of runs) {
        for (const encoded of run.encodedHistory) write({ t: 'event', r: run.runId, b: encoded.toString('base64') });
        write({ t: 'run', s: snapshotOf(run) }, true);
      }
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temporary, this.filePath);
    this.compactedBytes = bytes;
    this.bytesSinceCompaction = 0;
    this.erasurePending = false;
  }

  /** Reads the file (if any). A torn last line from a crash mid-write is ignored. */
  load(): LoadedState {
    if (!fs.existsSync(this.filePath)) {
      fs.mkdirSync(path.dirname(path.resolve(this.filePath)), { recursive: true });
      return { runs: [] };
    }
    const lines = fs.readFileSync(this.filePath, 'utf8').split('\n');
    const events = new Map<string, Buffer[]>();
    const snapshots = new Map<string, RunSnapshot>();
    let searchAttributes: LoadedState['searchAttributes'];
    lines.forEach((line, index) => {
      if (!line.trim()) return;
      let record: Record;
      try {
        record = JSON.parse(line, reviver) as Record;
      } catch (error) {
        if (index >= lines.length - 2) return;
        throw new Error(`${this.filePath}:${index + 1}: corrupt record (${(error as Error).message})`, {
          cause: error,
        });
      }
      applyRecord(record, events, snapshots, (sa) => (searchAttributes = sa));
    });
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
