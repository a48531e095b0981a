import type { WorkflowHandle } from '@temporalio/client';
import type { TurnRef, TurnReply } from '../ports';
import { awaitTurnReply } from './outcome';

interface Following {
  /** Order of creation; a caller that needs news from after its own action skips older ones. */
  seq: number;
  reply: Promise<TurnReply>;
}

/**
 * One `awaitMilestone` update per turn run per API process, whatever the number of HTTP callers
 * waiting on that turn: they share its reply. Temporal refuses an execution's 11th in-flight
 * update (`history.maxInFlightUpdates`), so one update per caller would fail client retries,
 * idempotent replays and live views of a busy turn; this keeps a turn at one update per process.
 */
export class TurnFollowers {
  private readonly following = new Map<string, Following>();
  private seq = 0;

  /**
   * The turn's next answer for the caller. `fresh` callers (the one that just decided an
   * approval) do not take a reply that was already on its way before they asked.
   */
  async follow(handle: WorkflowHandle, ref: TurnRef, options: { fresh?: boolean } = {}): Promise<TurnReply> {
    const key = `${ref.workflowId}/${ref.runId}`;
    const askedAt = this.seq;
    for (;;) {
      const current = this.following.get(key);
      if (!current) return this.start(key, handle, ref).reply;
      if (!options.fresh || current.seq > askedAt) return current.reply;
      await current.reply.catch(() => undefined);
    }
  }

  private start(key: string, handle: WorkflowHandle, ref: TurnRef): Following {
    const entry: Following = { seq: ++this.seq, reply: awaitTurnReply(handle, ref) };
    this.following.set(key, entry);
    const forget = () => {
      if (this.following.get(key) === entry) this.following.delete(key);
    };
    entry.reply.then(forget, forget);
    return entry;
  }
}
