/**
 * The engine owns all state of the dev server: runs, task queues, deadlines, waiters and the
 * optional persistent store. Every mutation runs inside `transact`, synchronously: Node's single
 * thread gives each transition exclusive access, and work that must see a finished transition
 * (handing tasks to pollers, waking long polls) is deferred to its end.
 */
import { randomUUID } from 'node:crypto';
import { workflowNotFound, type DevServerError } from '../errors';
import type { Message, Payloads } from '../proto/types';
import { Matching } from './matching';
import type { PersistentStore } from './persistence';
import { Scheduler } from './scheduler';
import { SearchAttributeRegistry } from './search-attributes';
import type { RunState } from './state';

export interface EngineOptions {
  namespace: string;
  /** Long polls (tasks, history, updates) return empty after this long; must stay under the SDK's 70 s. */
  longPollMs: number;
  /** How long closed runs are kept (reported by DescribeNamespace, enforced by housekeeping). */
  retentionMs: number;
  /** Called for unexpected internal errors; the server keeps running. */
  onInternalError: (error: unknown) => void;
  /** No timer, timeout or retry backoff fires sooner than this after it is set (see Scheduler). */
  minTimerDelayMs?: number;
  /** Updates admitted but not completed per execution before one more is refused (updates.ts). */
  maxInFlightUpdates: number;
  /** The real server's `history.workflowIdReuseMinimalInterval`: the shortest gap between the runs of a chain. */
  workflowIdReuseMinimalIntervalMs: number;
  /**
   * `system.enableActivityEagerExecution`: an activity the worker asks to run eagerly is handed to
   * it in the answer to the workflow task that scheduled it. Default true, as in deploy/temporal/.
   */
  eagerActivityExecution?: boolean;
  /** `system.enableEagerWorkflowStart`: a start that asks for it gets its first workflow task in the answer. Default true. */
  eagerWorkflowStart?: boolean;
  now?: () => number;
}

/** Counters that show how much history the server ships (sticky execution keeps this O(n)). */
export interface EngineStats {
  eventsWritten: number;
  eventsSentInWorkflowTasks: number;
  workflowTasksDispatched: number;
  activityTasksDispatched: number;
  /** Of those, handed out in a workflow task's answer or a start's (no poll, no matching). */
  eagerWorkflowTasks: number;
  eagerActivityTasks: number;
  /** Workflow tasks returned in the answer to the completion of the previous one. */
  returnedWorkflowTasks: number;
}

type Listener = () => void;

/** A query waiting for its answer: attached to a workflow task, or dispatched as a legacy query task. */
export interface PendingQuery {
  id: string;
  runId: string;
  query: Message;
  state: 'waiting' | 'attached' | 'dispatched';
  settle(outcome: { answer: Payloads | undefined } | { error: DevServerError }): void;
}

export class Engine {
  readonly namespace: string;
  readonly namespaceId = randomUUID();
  readonly now: () => number;
  readonly runs = new Map<string, RunState>();
  private readonly currentRuns = new Map<string, string>();
  readonly matching: Matching;
  readonly scheduler: Scheduler;
  readonly searchAttributes = new SearchAttributeRegistry();
  /** Queries in flight; they never outlive the client call, so they are not persisted. */
  readonly pendingQueries = new Map<string, PendingQuery>();
  readonly stats: EngineStats = {
    eventsWritten: 0,
    eventsSentInWorkflowTasks: 0,
    workflowTasksDispatched: 0,
    activityTasksDispatched: 0,
    eagerWorkflowTasks: 0,
    eagerActivityTasks: 0,
    returnedWorkflowTasks: 0,
  };
  store: PersistentStore | undefined;
  /**
   * The user metadata (summary, details) of the command being applied. The event writer attaches
   * it to the command's first event, as the real server does, so the UI shows activity summaries.
   */
  commandMetadata: unknown = null;
  longPollMs: number;
  readonly retentionMs: number;
  readonly maxInFlightUpdates: number;
  readonly workflowIdReuseMinimalIntervalMs: number;
  readonly eagerActivityExecution: boolean;
  readonly eagerWorkflowStart: boolean;
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly deferred: (() => void)[] = [];
  private depth = 0;
  private taskIdSeq = 1;
  private runSeq = 0;

  constructor(private readonly options: EngineOptions) {
    this.namespace = options.namespace;
    this.longPollMs = options.longPollMs;
    this.retentionMs = options.retentionMs;
    this.maxInFlightUpdates = options.maxInFlightUpdates;
    this.workflowIdReuseMinimalIntervalMs = options.workflowIdReuseMinimalIntervalMs;
    this.eagerActivityExecution = options.eagerActivityExecution ?? true;
    this.eagerWorkflowStart = options.eagerWorkflowStart ?? true;
    this.now = options.now ?? Date.now;
    this.matching = new Matching(this.now, () => this.longPollMs);
    // A deadline callback runs outside any RPC: an exception there must not take the process down.
    this.scheduler = new Scheduler(
      this.now,
      (fn) => {
        try {
          this.transact(fn);
        } catch (error) {
          this.options.onInternalError(error);
        }
      },
      options.minTimerDelayMs ?? 0
    );
  }

  /** Runs a transition; deferred work runs once the outermost transition is done. */
  transact<T>(fn: () => T): T {
    this.depth++;
    try {
      return fn();
    } finally {
      this.depth--;
      if (this.depth === 0) this.drainDeferred();
    }
  }

  defer(fn: () => void): void {
    this.deferred.push(fn);
  }

  private drainDeferred(): void {
    while (this.deferred.length > 0) {
      const fn = this.deferred.shift() as () => void;
      this.depth++;
      try {
        fn();
      } catch (error) {
        this.options.onInternalError(error);
      } finally {
        this.depth--;
      }
    }
  }

  reportInternalError(error: unknown): void {
    this.options.onInternalError(error);
  }

  nextTaskId(): number {
    return this.taskIdSeq++;
  }

  /** Keeps task IDs increasing across a restart. */
  resumeTaskIdsAfter(taskId: number): void {
    if (taskId >= this.taskIdSeq) this.taskIdSeq = taskId + 1;
  }

  nextRunSeq(): number {
    return ++this.runSeq;
  }

  addRun(run: RunState): void {
    this.runs.set(run.runId, run);
    const current = this.currentRun(run.workflowId);
    if (!current || current.createdSeq < run.createdSeq) this.currentRuns.set(run.workflowId, run.runId);
    if (run.createdSeq > this.runSeq) this.runSeq = run.createdSeq;
  }

  deleteRun(run: RunState): void {
    this.runs.delete(run.runId);
    if (this.currentRuns.get(run.workflowId) === run.runId) {
      this.currentRuns.delete(run.workflowId);
      let latest: RunState | undefined;
      for (const other of this.runs.values()) {
        if (other.workflowId === run.workflowId && (!latest || other.createdSeq > latest.createdSeq)) latest = other;
      }
      if (latest) this.currentRuns.set(latest.workflowId, latest.runId);
    }
    this.store?.recordDeletion(run.runId);
  }

  currentRun(workflowId: string): RunState | undefined {
    const runId = this.currentRuns.get(workflowId);
    return runId === undefined ? undefined : this.runs.get(runId);
  }

  /** The run named by an execution reference: the given run ID, or the workflow's current run. */
  requireRun(execution: { workflowId?: string; runId?: string } | undefined): RunState {
    const workflowId = execution?.workflowId ?? '';
    const runId = execution?.runId ?? '';
    const run = runId ? this.runs.get(runId) : this.currentRun(workflowId);
    if (!run || (workflowId && run.workflowId !== workflowId)) throw workflowNotFound(workflowId, runId || undefined);
    return run;
  }

  /** Marks a run's snapshot as changed for the persistent store. */
  touch(run: RunState): void {
    this.store?.recordRun(run);
  }

  /** Registers a one-shot listener for a topic (a run's history, an update's stage, ...). */
  listen(topic: string, listener: Listener): () => void {
    let set = this.listeners.get(topic);
    if (!set) {
      set = new Set();
      this.listeners.set(topic, set);
    }
    set.add(listener);
    return () => {
      const current = this.listeners.get(topic);
      current?.delete(listener);
      if (current?.size === 0) this.listeners.delete(topic);
    };
  }

  /** Wakes the listeners of a topic once the current transition is done. */
  notify(topic: string): void {
    const set = this.listeners.get(topic);
    if (!set) return;
    this.listeners.delete(topic);
    this.defer(() => {
      for (const listener of set) listener();
    });
  }

  /**
   * Waits until `topic` is notified, the call is cancelled or the long poll expires.
   * Resolves to true when notified.
   */
  waitFor(
    topic: string,
    call: { onCancel(fn: () => void): () => void },
    timeoutMs = this.longPollMs
  ): Promise<boolean> {
    return new Promise((resolve) => {
      let done = false;
      const finish = (notified: boolean): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        unlisten();
        stopListeningForCancel();
        resolve(notified);
      };
      const unlisten = this.listen(topic, () => finish(true));
      const timer = setTimeout(() => finish(false), timeoutMs);
      const stopListeningForCancel = call.onCancel(() => finish(false));
    });
  }

  stop(): void {
    this.scheduler.stop();
    this.matching.releaseAll();
    for (const set of this.listeners.values()) for (const listener of set) listener();
    this.listeners.clear();
  }
}
