import { AsyncLocalStorage } from 'node:async_hooks';
import { EngineError, ErrorType } from '../../core/errors';
import type { LlmClient } from '../../core/llm';
import type { TaskRegistry } from '../../core/tasks/registry';
import type { ActivityDeps } from '../deps';
import { activityContext } from './activity-context';

/** Whether this attempt runs as a Temporal local activity (false in-process, where there is no context). */
export function runningAsLocalActivity(): boolean {
  return activityContext()?.info.isLocal ?? false;
}

const localAttemptScope = new AsyncLocalStorage<true>();

/**
 * Runs `work` as a local attempt, outside a local activity: the steps after the lead of a regular
 * step run (RegularSteps, core/turn/step-runs.ts), so each LLM call keeps a regular activity of its
 * own, named by its step; and the in-process runner's local steps, so it hands steps over exactly
 * where the workflow does.
 */
export function asLocalAttempt<T>(work: () => Promise<T>): Promise<T> {
  return localAttemptScope.run(true, work);
}

/** Whether a step attempt refuses the LLM and consumer code (LocalAttempt): a local activity, or asLocalAttempt. */
export function attemptsLocally(): boolean {
  return localAttemptScope.getStore() === true || runningAsLocalActivity();
}

/**
 * The dependencies of a step attempt that runs as a local activity. The LLM and consumer task code
 * belong in regular activities (server-side retries, heartbeats, SRE retry and reset), so here
 * they refuse: the first LLM call or resolved task method throws before anything leaves the
 * process, and `escalation()` then holds the error that makes the workflow rerun the step as a
 * regular activity. Steps may catch the thrown error (a dialogue act falls back on its regex);
 * the flag still decides, so a fallback reached this way is never returned as the step's answer.
 */
export class LocalAttempt {
  private refusedFor: string | null = null;
  readonly deps: ActivityDeps;

  constructor(
    private readonly step: string,
    deps: ActivityDeps
  ) {
    this.deps = { ...deps, llm: this.refusingLlm(), tasks: this.refusingTasks(deps.tasks) };
  }

  /** The NEEDS_REGULAR_ACTIVITY error once the attempt reached the LLM or consumer code, else null. */
  escalation(): EngineError | null {
    if (this.refusedFor === null) return null;
    return new EngineError(ErrorType.NeedsRegularActivity, `${this.step} ${this.refusedFor}`);
  }

  private refuse(what: string): EngineError {
    this.refusedFor ??= what;
    return new EngineError(ErrorType.NeedsRegularActivity, `${this.step} ${what}`);
  }

  private refusingLlm(): LlmClient {
    return {
      generateText: (req) => Promise.reject(this.refuse(`calls the LLM (${req.kind})`)),
      generateJson: (req) => Promise.reject(this.refuse(`calls the LLM (${req.kind})`)),
    };
  }

  private refusingTasks(tasks: TaskRegistry): TaskRegistry {
    return {
      resolve: (taskName, method) => {
        if (tasks.resolve(taskName, method) === undefined) return undefined;
        throw this.refuse(`runs consumer task ${taskName}.${method}`);
      },
    };
  }
}
