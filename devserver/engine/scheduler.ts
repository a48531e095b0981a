/**
 * One scheduler drives every deadline (timers, task timeouts, retries, workflow timeouts) with a
 * single Node timer. Deadlines live in the run state; entries here are only an index rebuilt from
 * that state after a restart, so callbacks may be closures.
 *
 * Each entry has a key; setting a key again replaces its previous deadline. Replaced and cleared
 * entries stay in the heap and are skipped when they surface (lazy deletion keeps updates O(log n)).
 */
interface Entry {
  at: number;
  seq: number;
  key: string;
  fn: () => void;
  live: boolean;
}

// setTimeout overflows above 2^31-1 ms; far deadlines are re-checked when this fires.
const MAX_TIMER_DELAY_MS = 2_147_000_000;

export class Scheduler {
  private readonly heap: Entry[] = [];
  private readonly byKey = new Map<string, Entry>();
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private seq = 0;
  private stopped = false;

  /**
   * `minDelayMs`: no deadline fires sooner than this after it is set. The real server (1.29) gives
   * every timer task a fire time of at least now + `history.timerProcessorMaxTimeShift` (1 s), so
   * a 50 ms retry backoff or a 400 ms timeout fires after ~1 s there; the dev server does the same.
   */
  constructor(
    private readonly now: () => number,
    private readonly runCallback: (fn: () => void) => void,
    private readonly minDelayMs = 0
  ) {}

  set(key: string, deadline: number, fn: () => void): void {
    const previous = this.byKey.get(key);
    if (previous) previous.live = false;
    const at = Math.max(deadline, this.now() + this.minDelayMs);
    const entry: Entry = { at, seq: this.seq++, key, fn, live: true };
    this.byKey.set(key, entry);
    this.push(entry);
    if (at < this.timerAt) this.arm();
  }

  clear(key: string): void {
    const entry = this.byKey.get(key);
    if (entry) {
      entry.live = false;
      this.byKey.delete(key);
    }
  }

  has(key: string): boolean {
    return this.byKey.has(key);
  }

  /** Deadline currently registered under `key`, if any. */
  deadline(key: string): number | undefined {
    return this.byKey.get(key)?.at;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    if (this.stopped) return;
    while (this.heap.length > 0 && !(this.heap[0] as Entry).live) this.pop();
    const first = this.heap[0];
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
    if (!first) return;
    this.timerAt = first.at;
    const delay = Math.min(Math.max(0, first.at - this.now()), MAX_TIMER_DELAY_MS);
    this.timer = setTimeout(() => this.fire(), delay);
    // The scheduler alone must not keep the process alive: the gRPC server does while it runs.
    this.timer.unref();
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = this.now();
    while (this.heap.length > 0 && (this.heap[0] as Entry).at <= now) {
      const entry = this.pop();
      if (!entry.live) continue;
      entry.live = false;
      this.byKey.delete(entry.key);
      this.runCallback(entry.fn);
    }
    this.arm();
  }

  private less(a: Entry, b: Entry): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  private push(entry: Entry): void {
    const heap = this.heap;
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(heap[i] as Entry, heap[parent] as Entry)) break;
      [heap[i], heap[parent]] = [heap[parent] as Entry, heap[i] as Entry];
      i = parent;
    }
  }

  private pop(): Entry {
    const heap = this.heap;
    const top = heap[0] as Entry;
    const last = heap.pop() as Entry;
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        if (left < heap.length && this.less(heap[left] as Entry, heap[smallest] as Entry)) smallest = left;
        if (right < heap.length && this.less(heap[right] as Entry, heap[smallest] as Entry)) smallest = right;
        if (smallest === i) break;
        [heap[i], heap[smallest]] = [heap[smallest] as Entry, heap[i] as Entry];
        i = smallest;
      }
    }
    return top;
  }
}
