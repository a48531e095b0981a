import type { WorkflowHandle } from '@temporalio/client';
import type { StillRunningReason, TurnRef, TurnReply } from '../../../api/ports';
import { TurnFollowers } from '../../../api/turns/followers';

const REF: TurnRef = { conversationId: 'c', turnNumber: 1, workflowId: 'turn-c-1', runId: 'r1' };
const COMPLETED = { status: 'COMPLETED', result: { outcome: 'ANSWERED' } };

/** A turn whose awaitMilestone update answers when the test says so; counts the updates sent. */
function fakeTurn() {
  let answer: (progress: unknown) => void = () => undefined;
  const turn = {
    updates: 0,
    answer: (progress: unknown) => answer(progress),
    handle: {
      executeUpdate: () => {
        turn.updates += 1;
        return new Promise((resolve) => (answer = resolve));
      },
    } as unknown as WorkflowHandle,
  };
  return turn;
}

function followers(replyTimeoutMs: number) {
  const told: StillRunningReason[] = [];
  const stillRunning = async (ref: TurnRef, reason: StillRunningReason): Promise<TurnReply> => {
    told.push(reason);
    return { kind: 'RUNNING', ref, reason, intent: 'I', state: 'S' };
  };
  return { told, followers: new TurnFollowers({ replyTimeoutMs, stillRunning, committedReply: async () => null }) };
}

describe('TurnFollowers (api/turns/followers.ts)', () => {
  it("gives the turn's answer when it comes within the wait", async () => {
    const turn = fakeTurn();
    const { followers: f } = followers(5_000);
    const reply = f.follow(turn.handle, REF);
    turn.answer(COMPLETED);
    await expect(reply).resolves.toMatchObject({ kind: 'COMPLETED', ref: REF });
  });

  it('answers RUNNING past the wait, and a later caller shares the same update', async () => {
    const turn = fakeTurn();
    const { followers: f, told } = followers(50);
    await expect(f.follow(turn.handle, REF)).resolves.toMatchObject({ kind: 'RUNNING', reason: 'REPLY_TIMEOUT' });
    const later = f.follow(turn.handle, REF);
    turn.answer(COMPLETED);
    await expect(later).resolves.toMatchObject({ kind: 'COMPLETED' });
    expect(turn.updates).toBe(1);
    expect(told).toEqual(['REPLY_TIMEOUT']);
  });

  it('answers every waiting caller at once when released, and every later one too', async () => {
    const turn = fakeTurn();
    const { followers: f, told } = followers(60_000);
    const waiting = [f.follow(turn.handle, REF), f.follow(turn.handle, REF)];
    f.release();
    await expect(Promise.all(waiting)).resolves.toMatchObject([
      { kind: 'RUNNING', reason: 'API_STOPPING' },
      { kind: 'RUNNING', reason: 'API_STOPPING' },
    ]);
    await expect(f.follow(fakeTurn().handle, REF)).resolves.toMatchObject({ reason: 'API_STOPPING' });
    expect(told).toEqual(['API_STOPPING', 'API_STOPPING', 'API_STOPPING']);
  });
});
