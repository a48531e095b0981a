/**
 * A journal write that fails (a full disk) is never acknowledged and never leaves a torn line mid-file: the store
 * cuts the write back, keeps what it could not write, refuses to commit until a write succeeds, and then writes it.
 * A torn last line is skipped at load; a corrupt line before it is an error naming the repair, which keeps every
 * record before it.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DevServerError } from '../../devserver/errors';
import type { Engine } from '../../devserver/engine/engine';
import { CorruptJournalError, repairJournal } from '../../devserver/engine/journal-file';
import { PersistentStore } from '../../devserver/engine/persistence';
import { createTestRun, newEngine } from './engine-fixture';
import { failingFs, type FailingFs } from './failing-fs';

let directory: string;
let file: string;

beforeEach(() => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'journal-failure-'));
  file = path.join(directory, 'state.jsonl');
});
afterEach(() => fs.rmSync(directory, { recursive: true, force: true }));

interface Journaled {
  engine: Engine;
  store: PersistentStore;
  disk: FailingFs;
  errors: unknown[];
  warnings: string[];
}

function journaled(): Journaled {
  const engine = newEngine();
  const disk = failingFs();
  const errors: unknown[] = [];
  const warnings: string[] = [];
  const store = new PersistentStore(file, 'default', (error) => errors.push(error), {
    fs: disk,
    onWarning: (message) => warnings.push(message),
  });
  engine.store = store;
  return { engine, store, disk, errors, warnings };
}

function startRun(engine: Engine, workflowId: string): void {
  engine.transact(() => createTestRun(engine, workflowId));
}

const reload = (): string[] =>
  new PersistentStore(file, 'default', () => undefined)
    .load()
    .runs.map((run) => run.workflowId)
    .sort();

describe('a journal write that fails', () => {
  test('is cut back to the last whole line, refuses to commit, and is written again once there is room', () => {
    const { engine, store, disk, errors, warnings } = journaled();
    startRun(engine, 'before');
    store.commit();
    const good = fs.readFileSync(file, 'utf8');

    disk.budget = 10; // the next write tears after 10 bytes
    startRun(engine, 'while-full-1');
    expect(() => store.commit()).toThrow(DevServerError);
    expect(() => store.commit()).toThrow(/cannot write its journal .*ENOSPC/);
    expect(store.failureMessage()).toMatch(/ENOSPC/);
    expect(fs.readFileSync(file, 'utf8')).toBe(good); // no torn line left for later appends to follow
    startRun(engine, 'while-full-2');
    expect(() => store.commit()).toThrow(expect.objectContaining({ type: 'UNAVAILABLE' }));
    expect(errors).toHaveLength(1); // reported once, however often it is tried

    disk.budget = Infinity;
    startRun(engine, 'after');
    store.commit();
    expect(store.failureMessage()).toBeNull();
    expect(warnings).toEqual([expect.stringMatching(/written again/)]);
    // Every run that memory holds is in the file: nothing recorded while the disk was full is lost.
    expect(reload()).toEqual(['after', 'before', 'while-full-1', 'while-full-2']);
  });

  test('a compaction that fails removes its temporary file and leaves the journal as it was', () => {
    const { engine, store, disk } = journaled();
    startRun(engine, 'kept');
    store.commit();
    const good = fs.readFileSync(file, 'utf8');
    disk.budget = 50;
    expect(() => store.compact(engine.runs.values(), engine.searchAttributes.custom)).toThrow(/ENOSPC/);
    expect(fs.readdirSync(directory)).toEqual(['state.jsonl']);
    expect(fs.readFileSync(file, 'utf8')).toBe(good);
  });

  test('a compaction that succeeds writes what an append failed to write', () => {
    const { engine, store, disk } = journaled();
    disk.budget = 0;
    startRun(engine, 'unwritten');
    expect(() => store.commit()).toThrow(/ENOSPC/);
    disk.budget = Infinity;
    store.compact(engine.runs.values(), engine.searchAttributes.custom);
    expect(store.failureMessage()).toBeNull();
    expect(reload()).toEqual(['unwritten']);
  });
});

describe('loading a journal', () => {
  test('skips a torn last line with a warning, and the next append replaces it', () => {
    const { engine, store } = journaled();
    startRun(engine, 'first');
    store.commit();
    fs.appendFileSync(file, '{"t":"event","r":"x","b":"AAA');
    const warnings: string[] = [];
    const again = new PersistentStore(file, 'default', () => undefined, { onWarning: (w) => warnings.push(w) });
    expect(again.load().runs.map((run) => run.workflowId)).toEqual(['first']);
    expect(warnings).toEqual([expect.stringMatching(/state\.jsonl:\d+: skipped a torn last line/)]);
    const engine2 = newEngine();
    engine2.store = again;
    startRun(engine2, 'second');
    again.commit();
    expect(reload()).toEqual(['first', 'second']);
  });

  test('a corrupt line before the last says how to repair, and the repair keeps every record before it', () => {
    const { engine, store } = journaled();
    startRun(engine, 'kept');
    store.commit();
    const good = fs.readFileSync(file, 'utf8');
    // What a write torn mid-line left before appends went on after it.
    fs.appendFileSync(file, '{"t":"event","r":"torn","b":"AA\n{"t":"delete","r":"after-the-tear"}\n');

    const load = () => new PersistentStore(file, 'default', () => undefined).load();
    expect(load).toThrow(CorruptJournalError);
    expect(load).toThrow(/convengine devserver --repair-journal .*state\.jsonl/);

    const report = repairJournal(file, fs, Date.parse('2026-12-01T00:00:00Z'));
    expect(report).toMatchObject({ firstDroppedLine: good.split('\n').length, droppedLines: expect.any(Number) });
    expect(fs.readFileSync(file, 'utf8')).toBe(good);
    expect(fs.readFileSync(report.backup ?? '', 'utf8')).toContain('after-the-tear');
    expect(reload()).toEqual(['kept']);
    expect(repairJournal(file).firstDroppedLine).toBeNull();
  });
});
