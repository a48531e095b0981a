/**
 * Task queues and long polls. A queued task is a small object that knows how to dispatch itself
 * to a poller (writing WorkflowTaskStarted, marking an activity started, ...) and returns
 * `undefined` when it went stale meanwhile (the run moved on), in which case it is dropped.
 */
export type TaskQueueType = 'workflow' | 'activity';

export interface PollerInfo {
  identity: string;
  queueName: string;
}

export interface QueuedTask {
  dispatch(poller: PollerInfo): unknown;
}

/** What a long poll needs from its gRPC call. */
export interface PollCall {
  isCancelled(): boolean;
  /** Returns a function that removes the listener. */
  onCancel(listener: () => void): () => void;
}

interface Poller {
  info: PollerInfo;
  call: PollCall;
  settled: boolean;
  settle(response: unknown): void;
}

class QueueState {
  tasks: QueuedTask[] = [];
  head = 0;
  pollers: Poller[] = [];
  lastPollAt = 0;
  readonly identities = new Map<string, number>();

  get backlog(): number {
    return this.tasks.length - this.head;
  }

  shift(): QueuedTask | undefined {
    if (this.head >= this.tasks.length) return undefined;
    const task = this.tasks[this.head];
    this.tasks[this.head++] = undefined as unknown as QueuedTask;
    if (this.head > 1024 && this.head * 2 > this.tasks.length) {
      this.tasks = this.tasks.slice(this.head);
      this.head = 0;
    }
    return task;
  }

  nextPoller(): Poller | undefined {
    while (this.pollers.length > 0) {
      const poller = this.pollers.shift() as Poller;
      if (!poller.settled && !poller.call.isCancelled()) return poller;
    }
    return undefined;
  }
}

export interface PollerDescription {
  identity: string;
  lastAccessTime: number;
}

export class Matching {
  private readonly queues = new Map<string, QueueState>();

  constructor(
    private readonly now: () => number,
    private readonly longPollMs: () => number
  ) {}

  private queue(type: TaskQueueType, name: string): QueueState {
    const key = `${type}:${name}`;
    let queue = this.queues.get(key);
    if (!queue) {
      queue = new QueueState();
      this.queues.set(key, queue);
    }
    return queue;
  }

  /** Hands the task to a waiting poller, or queues it. */
  offer(type: TaskQueueType, name: string, task: QueuedTask): void {
    const queue = this.queue(type, name);
    const poller = queue.nextPoller();
    if (!poller) {
      queue.tasks.push(task);
      return;
    }
    const response = task.dispatch(poller.info);
    if (response === undefined) {
      // The task went stale before anyone took it; the poller keeps its place for the next one.
      queue.pollers.unshift(poller);
      return;
    }
    poller.settle(response);
  }

  /** Resolves with a dispatched task, or `undefined` on long-poll expiry or call cancellation. */
  poll(type: TaskQueueType, name: string, identity: string, call: PollCall): Promise<unknown> {
    if (call.isCancelled()) return Promise.resolve(undefined);
    const queue = this.queue(type, name);
    const info: PollerInfo = { identity, queueName: name };
    const now = this.now();
    queue.lastPollAt = now;
    queue.identities.set(identity, now);
    for (let task = queue.shift(); task; task = queue.shift()) {
      const response = task.dispatch(info);
      if (response !== undefined) return Promise.resolve(response);
    }
    return new Promise((resolve) => {
      const poller: Poller = {
        info,
        call,
        settled: false,
        settle: (response) => {
          if (poller.settled) return;
          poller.settled = true;
          clearTimeout(timer);
          stopListening();
          queue.lastPollAt = this.now();
          resolve(response);
        },
      };
      // An expired or cancelled poll leaves the queue at once: on a queue no task comes to, nothing else would take
      // it out, and each one kept its gRPC call (a soak of `convengine start` saw ~12 more a minute, for ever).
      const leave = (): void => {
        poller.settle(undefined);
        const index = queue.pollers.indexOf(poller);
        if (index >= 0) queue.pollers.splice(index, 1);
      };
      const timer = setTimeout(leave, this.longPollMs());
      const stopListening = call.onCancel(leave);
      queue.pollers.push(poller);
    });
  }

  /** Drops queued tasks matching `predicate` (e.g. a run's task moved off a sticky queue). */
  remove(type: TaskQueueType, name: string, predicate: (task: QueuedTask) => boolean): void {
    const queue = this.queues.get(`${type}:${name}`);
    if (!queue) return;
    queue.tasks = queue.tasks.slice(queue.head).filter((task) => !predicate(task));
    queue.head = 0;
  }

  /** True when a poller waits on the queue now or polled it within `withinMs`. */
  isPolled(type: TaskQueueType, name: string, withinMs: number): boolean {
    const queue = this.queues.get(`${type}:${name}`);
    if (!queue) return false;
    if (queue.pollers.some((p) => !p.settled && !p.call.isCancelled())) return true;
    return this.now() - queue.lastPollAt < withinMs;
  }

  /** Long polls the queue holds: the waiting ones, and any settled one not yet taken out. */
  heldPolls(type: TaskQueueType, name: string): number {
    return this.queues.get(`${type}:${name}`)?.pollers.length ?? 0;
  }

  backlog(type: TaskQueueType, name: string): number {
    return this.queues.get(`${type}:${name}`)?.backlog ?? 0;
  }

  pollers(type: TaskQueueType, name: string): PollerDescription[] {
    const queue = this.queues.get(`${type}:${name}`);
    if (!queue) return [];
    return [...queue.identities].map(([identity, lastAccessTime]) => ({ identity, lastAccessTime }));
  }

  /** Forgets a queue (a sticky queue whose worker shut down). Its pollers get empty responses. */
  drop(type: TaskQueueType, name: string): void {
    const key = `${type}:${name}`;
    const queue = this.queues.get(key);
    if (!queue) return;
    for (const poller of queue.pollers) poller.settle(undefined);
    this.queues.delete(key);
  }

  /** Answers every waiting poller with an empty response (server shutdown). */
  releaseAll(): void {
    for (const queue of this.queues.values()) {
      for (const poller of queue.pollers) poller.settle(undefined);
      queue.pollers = [];
    }
  }
}
