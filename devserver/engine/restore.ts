/**
 * Rebuilds the runtime side (queued tasks, deadlines) from persisted run state after a restart.
 * Started tasks stay started: their worker may still complete them, and if it does not, their
 * timeouts make them dispatchable again.
 */
import { restoreActivity } from './activities';
import type { Engine } from './engine';
import { armRunTimeout } from './executions';
import type { LoadedState } from './persistence';
import { searchAttributeTypeOf } from './search-attributes';
import { isOpen, lastEvent, type RunState } from './state';
import { armTimer } from './timers';
import { armWorkflowTask, enqueueWorkflowTask, scheduleWorkflowTask } from './workflow-task';

function restoreRun(engine: Engine, run: RunState): void {
  armRunTimeout(engine, run);
  for (const timerId of Object.keys(run.timers)) armTimer(engine, run, timerId);
  for (const activity of Object.values(run.activities)) restoreActivity(engine, run, activity);
  const wft = run.wft;
  if (wft) {
    armWorkflowTask(engine, run);
    if (wft.startedEventId === 0 && wft.notBefore === undefined) enqueueWorkflowTask(engine, run, wft);
  } else if (run.buffered.length > 0) {
    scheduleWorkflowTask(engine, run);
  }
}

export function restoreState(engine: Engine, loaded: LoadedState): void {
  if (loaded.searchAttributes) {
    engine.searchAttributes.custom.clear();
    for (const [name, type] of Object.entries(loaded.searchAttributes)) {
      if (typeof type === 'number') {
        const named = searchAttributeTypeOf(type);
        if (named) engine.searchAttributes.custom.set(name, named);
      } else {
        engine.searchAttributes.custom.set(name, type);
      }
    }
  }
  engine.transact(() => {
    for (const run of loaded.runs) {
      engine.addRun(run);
      engine.resumeTaskIdsAfter(lastEvent(run)?.taskId ?? 0);
    }
    for (const run of loaded.runs) if (isOpen(run)) restoreRun(engine, run);
  });
}
