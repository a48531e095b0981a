import type { WorkflowHandle } from '@temporalio/client';
import { isTemporalUnreachable } from '../../config/temporal-client';
import type { StillRunningReason, TurnRef, TurnReply } from '../ports';
import { awaitTurnReply, type CommittedReplyReader } from './outcome';

interface Following {
  /** Order of creation; a caller that needs news from after its own action skips older ones. */
  seq: number;
  reply: Promise<TurnReply>;
}

export interface TurnFollowersOptions {
  /** How long one HTTP caller waits for its turn's next answer before it is told the turn still runs. */
  replyTimeoutMs: number;
  /** The answer for a caller whose turn still runs. */
  stillRunning(ref: TurnRef, reason: StillRunningReason): Promise<TurnReply>;
  /** The reply of a turn whose run was ended after it committed (outcome.ts). */
  committedReply: CommittedReplyReader;
}

/**
 * Whether Temporal answers a describe of the turn (within the client's call deadline, TEMPORAL_CALL_TIMEOUT_MS in the
 * API): any answer, an error one included, is from a reachable server.
 */
function temporalAnswers(handle: WorkflowHandle): Promise<boolean> {
  return handle.describe().then(
    () => true,
    (err: unknown) => !isTemporalUnreachable(err)
  );
}

/** A turn run's key: its callers share one update, and one describe at a time. */
const runKey = (ref: TurnRef): string => `${ref.workflowId}/${ref.runId}`;

/**
 * One `awaitMilestone` update per turn run per API process, whatever the number of HTTP callers
 * waiting on that turn: they share its reply. Temporal refuses an execution's 11th in-flight
 * update (`history.maxInFlightUpdates`), so one update per caller would fail client retries,
 * idempotent replays and live views of a busy turn; this keeps a turn at one update per process.
 *
 * No caller waits without end: past `replyTimeoutMs` (and the describe that tells a server that stopped answering:
 * TEMPORAL_UNREACHABLE), or once the API stops (`release`), it gets a RUNNING reply and the turn goes on in Temporal.
 * A stopping API thus closes while a turn sits in a tool's retry backoff, and a gateway's own HTTP timeout is not the
 * one that answers.
 */
export class TurnFollowers {
  private readonly following = new Map<string, Following>();
  /** The describe in flight per turn run: callers whose waits end meanwhile share it, as they share the reply. */
  private readonly describing = new Map<string, Promise<boolean>>();
  private readonly waiting = new Set<() => void>();
  private seq = 0;
  private released = false;

  constructor(private readonly options: TurnFollowersOptions) {}

  /**
   * The turn's next answer for the caller. `fresh` callers (the one that just decided an
   * approval) do not take a reply that was already on its way before they asked.
   */
  follow(handle: WorkflowHandle, ref: TurnRef, options: { fresh?: boolean } = {}): Promise<TurnReply> {
    if (this.released) return this.options.stillRunning(ref, 'API_STOPPING');
    return this.bounded(this.shared(handle, ref, options.fresh ?? false), handle, ref);
  }

  /** Every caller waiting now or later is answered at once: the API is stopping. */
  release(): void {
    this.released = true;
    for (const answer of [...this.waiting]) answer();
  }

  private async shared(handle: WorkflowHandle, ref: TurnRef, fresh: boolean): Promise<TurnReply> {
    const key = runKey(ref);
    const askedAt = this.seq;
    for (;;) {
      const current = this.following.get(key);
      if (!current) return this.start(key, handle, ref).reply;
      if (!fresh || current.seq > askedAt) return current.reply;
      await current.reply.catch(() => undefined);
    }
  }

  private bounded(reply: Promise<TurnReply>, handle: WorkflowHandle, ref: TurnRef): Promise<TurnReply> {
    return new Promise<TurnReply>((resolve, reject) => {
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.waiting.delete(onRelease);
        outcome();
      };
      const stillRunning = (reason: StillRunningReason) => () => resolve(this.options.stillRunning(ref, reason));
      // A frozen server fails no waiting update: asked when the wait ends, it tells a slow turn from an outage. The
      // turn's answer or the API's stop, if either comes meanwhile, still wins.
      const timedOut = () =>
        void this.temporalAnswers(handle, ref).then((answers) =>
          settle(stillRunning(answers ? 'REPLY_TIMEOUT' : 'TEMPORAL_UNREACHABLE'))
        );
      const timer = setTimeout(timedOut, this.options.replyTimeoutMs);
      const onRelease = () => settle(stillRunning('API_STOPPING'));
      this.waiting.add(onRelease);
      // The turn started: a server that stops answering while the caller waits loses the reply, not the turn, and
      // the caller is told which turn it is (a 503 would read as "not started", and a retry would run it again).
      const failed = (err: unknown) =>
        isTemporalUnreachable(err) ? stillRunning('TEMPORAL_UNREACHABLE') : () => reject(err);
      reply.then(
        (value) => settle(() => resolve(value)),
        (err: unknown) => settle(failed(err))
      );
    });
  }

  /**
   * temporalAnswers, one describe per turn run at a time: N callers of one turn whose waits end together send one, not
   * N, to a server that may be frozen. An answer that comes after a caller's wait ended is as fresh as its own would be.
   */
  private temporalAnswers(handle: WorkflowHandle, ref: TurnRef): Promise<boolean> {
    const key = runKey(ref);
    const inFlight = this.describing.get(key);
    if (inFlight) return inFlight;
    const answers = temporalAnswers(handle).finally(() => this.describing.delete(key));
    this.describing.set(key, answers);
    return answers;
  }

  private start(key: string, handle: WorkflowHandle, ref: TurnRef): Following {
    const entry: Following = { seq: ++this.seq, reply: awaitTurnReply(handle, ref, this.options.committedReply) };
    this.following.set(key, entry);
    const forget = () => {
      if (this.following.get(key) === entry) this.following.delete(key);
    };
    entry.reply.then(forget, forget);
    return entry;
  }
}
