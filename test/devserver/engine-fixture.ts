/** An engine and runs driven directly, without gRPC: for tests of what the engine keeps and journals. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../../devserver/engine/engine';
import { createRun } from '../../devserver/engine/executions';
import { PersistentStore } from '../../devserver/engine/persistence';
import type { RunState } from '../../devserver/engine/state';

export function newEngine(): Engine {
  return new Engine({
    namespace: 'default',
    longPollMs: 1000,
    retentionMs: 60_000,
    maxInFlightUpdates: 10,
    workflowIdReuseMinimalIntervalMs: 0,
    onInternalError: (error) => {
      throw error;
    },
  });
}

/** A run with its WorkflowExecutionStarted event only; call inside `engine.transact`. */
export function createTestRun(engine: Engine, workflowId: string): RunState {
  return createRun(engine, {
    workflowId,
    workflowType: 'wf',
    taskQueue: 'q',
    memo: {},
    searchAttributes: {},
    runTimeoutMs: 0,
    executionTimeoutMs: 0,
    workflowTaskTimeoutMs: 10_000,
    identity: 'test',
    requestId: `${workflowId}-start`,
  });
}

/** Runs `fn` on a new engine that journals to a file in a temporary directory, removed afterwards. */
export function withJournal(fn: (engine: Engine, store: PersistentStore, file: string) => void): void {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-journal-'));
  try {
    const file = path.join(directory, 'state.jsonl');
    const engine = newEngine();
    const store = new PersistentStore(file, 'default', (error) => {
      throw error;
    });
    engine.store = store;
    fn(engine, store, file);
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}
