/**
 * The dev server's long polls (devserver/engine/matching.ts): one that expires on a queue no task comes to must
 * not stay in the queue, holding its gRPC call, until a task arrives.
 */
import { Matching, type PollCall } from '../../devserver/engine/matching';

const LONG_POLL_MS = 5;
const POLLS = 40;

function openCall(): PollCall & { cancel(): void } {
  const listeners = new Set<() => void>();
  let cancelled = false;
  return {
    isCancelled: () => cancelled,
    onCancel: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    cancel: () => {
      cancelled = true;
      for (const listener of listeners) listener();
    },
  };
}

describe('dev server long polls', () => {
  it('an expired poll leaves its queue, so an idle queue holds only the polls that wait', async () => {
    const matching = new Matching(Date.now, () => LONG_POLL_MS);
    for (let i = 0; i < POLLS; i++) {
      await expect(matching.poll('activity', 'idle', `worker-${i % 4}`, openCall())).resolves.toBeUndefined();
    }
    expect(matching.heldPolls('activity', 'idle')).toBe(0);
    const waiting = matching.poll('activity', 'idle', 'worker-0', openCall());
    expect(matching.heldPolls('activity', 'idle')).toBe(1);
    await expect(waiting).resolves.toBeUndefined();
    expect(matching.heldPolls('activity', 'idle')).toBe(0);
  });

  it('a cancelled poll leaves its queue, and a task offered later goes to a poll that waits', async () => {
    const matching = new Matching(Date.now, () => 60_000);
    const cancelled = openCall();
    const gone = matching.poll('workflow', 'q', 'worker-a', cancelled);
    const waiting = matching.poll('workflow', 'q', 'worker-b', openCall());
    cancelled.cancel();
    await expect(gone).resolves.toBeUndefined();
    expect(matching.heldPolls('workflow', 'q')).toBe(1);
    matching.offer('workflow', 'q', { dispatch: (poller) => ({ to: poller.identity }) });
    await expect(waiting).resolves.toEqual({ to: 'worker-b' });
  });
});
