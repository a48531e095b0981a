/**
 * What a closed run keeps while retention holds it (the soak test of 2026-11-30: ~390 KB per turn,
 * ~7x the turn's history): only its encoded events, packed into one buffer of their exact size. Its
 * decoded events are dropped (they pointed into request buffers) and decoded again when read, so
 * every answer about it stays the same. A restart loads a closed run the same way.
 */
import type { Engine } from '../../devserver/engine/engine';
import { executionInfo } from '../../devserver/engine/describe';
import { terminateRun } from '../../devserver/engine/executions';
import { appendEvent, encodeEvent } from '../../devserver/engine/history';
import { PersistentStore } from '../../devserver/engine/persistence';
import { eventAt, lastEvent, type RunState } from '../../devserver/engine/state';
import { decodeMessage, protoType } from '../../devserver/proto/codec';
import { enums } from '../../devserver/proto/types';
import { createTestRun, newEngine, withJournal } from './engine-fixture';

const HISTORY_EVENT = protoType('temporal.api.history.v1.HistoryEvent');

/** A run with a few signal events whose payloads are small Buffers from Node's shared pool. */
function runWithSignals(engine: Engine, workflowId: string): RunState {
  return engine.transact(() => {
    const run = createTestRun(engine, workflowId);
    for (let i = 0; i < 5; i++) {
      const data = Buffer.from(`signal ${i} `.repeat(20));
      appendEvent(
        engine,
        run,
        enums.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED,
        'workflowExecutionSignaledEventAttributes',
        {
          signalName: 'add',
          input: { payloads: [{ metadata: { encoding: Buffer.from('json/plain') }, data }] },
        }
      );
    }
    return run;
  });
}

const decodedAll = (run: RunState) => run.encodedHistory.map((bytes) => decodeMessage(HISTORY_EVENT, bytes));

test('a closed run keeps its events encoded in one exact-size buffer and reads them back unchanged', () => {
  const engine = newEngine();
  const run = runWithSignals(engine, 'closing');
  const open = run.history.map((event) => decodeMessage(HISTORY_EVENT, encodeEvent(event)));
  expect(open).toHaveLength(6);
  engine.transact(() => terminateRun(engine, run, 'done', undefined, 'test'));
  const expected = decodedAll(run);
  expect(expected.slice(0, 6)).toEqual(open);

  expect(run.history).toHaveLength(0);
  const backing = new Set(run.encodedHistory.map((bytes) => bytes.buffer));
  expect(backing.size).toBe(1);
  expect([...backing][0]?.byteLength).toBe(run.historySizeBytes);
  expect(run.encodedHistory.map((_, i) => eventAt(run, i))).toEqual(expected);
  expect(lastEvent(run)?.eventType).toBe(enums.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED);
  expect(executionInfo(run).historyLength).toBe(7);
});

test('a restart loads a closed run encoded only, an open one decoded, and both read the same events', () => {
  withJournal((engine, store, file) => {
    const closed = runWithSignals(engine, 'closed');
    const open = runWithSignals(engine, 'open');
    engine.transact(() => terminateRun(engine, closed, 'done', undefined, 'test'));
    store.flush();

    const loaded = new PersistentStore(file, 'default', () => undefined).load().runs;
    const [loadedClosed, loadedOpen] = [closed, open].map((run) => loaded.find((r) => r.runId === run.runId));
    expect(loadedClosed?.history).toHaveLength(0);
    expect(new Set(loadedClosed?.encodedHistory.map((bytes) => bytes.buffer)).size).toBe(1);
    expect(loadedClosed && loadedClosed.encodedHistory.map((_, i) => eventAt(loadedClosed, i))).toEqual(
      decodedAll(closed)
    );
    expect(loadedOpen?.history).toEqual(decodedAll(open));
    expect(loadedOpen && lastEvent(loadedOpen)?.taskId).toBe(lastEvent(open)?.taskId);
  });
});
