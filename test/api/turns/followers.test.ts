import * as grpc from '@grpc/grpc-js';
import type { WorkflowHandle } from '@temporalio/client';
import type { StillRunningReason, TurnRef, TurnReply } from '../../../api/ports';
import { TurnFollowers } from '../../../api/turns/followers';

const REF: TurnRef = { conversationId: 'c', turnNumber: 1, workflowId: 'turn-c-1', runId: 'r1' };
const COMPLETED = { status: 'COMPLETED', result: { outcome: 'ANSWERED' } };

/** A gRPC call that got no answer within its deadline, as the API's bounded client fails it. */
const deadlineExceeded = () => Object.assign(new Error('Deadline exceeded'), { code: grpc.status.DEADLINE_EXCEEDED });

/**
 * A turn whose awaitMilestone update answers when the test says so; counts the updates sent. Its describe answers
 * as `describe` says (a reachable server by default).
 */
function fakeTurn(describe: () => Promise<unknown> = async () => ({ status: { name: 'RUNNING' } })) {
  let answer: (progress: unknown) => void = () => undefined;
  const turn = {
    updates: 0,
    answer: (progress: unknown) => answer(progress),
    handle: {
      executeUpdate: () => {
        turn.updates += 1;
        return new Promise((resolve) => (answer = resolve));
      },
      describe,
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

  it('answers TEMPORAL_UNREACHABLE past the wait when Temporal no longer answers, REPLY_TIMEOUT when it says no', async () => {
    const { followers: f, told } = followers(50);
    const frozen = fakeTurn(() => Promise.reject(deadlineExceeded()));
    await expect(f.follow(frozen.handle, REF)).resolves.toMatchObject({ reason: 'TEMPORAL_UNREACHABLE' });
    const refused = fakeTurn(() => Promise.reject(Object.assign(new Error('denied'), { code: grpc.status.NOT_FOUND })));
    await expect(f.follow(refused.handle, { ...REF, runId: 'r2' })).resolves.toMatchObject({ reason: 'REPLY_TIMEOUT' });
    expect(told).toEqual(['TEMPORAL_UNREACHABLE', 'REPLY_TIMEOUT']);
  });

  it('sends one describe for the callers of a turn whose waits end while it is in flight, and a new one after', async () => {
    let describes = 0;
    const unanswered: (() => void)[] = [];
    const fail = () => unanswered.splice(0).forEach((deadline) => deadline());
    const turn = fakeTurn(() => {
      describes += 1;
      return new Promise((_resolve, reject) => unanswered.push(() => reject(deadlineExceeded())));
    });
    const { followers: f, told } = followers(50);
    const waiting = Array.from({ length: 5 }, () => f.follow(turn.handle, REF));
    // Timers fire by their due time: every caller's 50 ms wait has ended once this 200 ms one has.
    await new Promise((resolve) => setTimeout(resolve, 200));
    fail();
    await expect(Promise.all(waiting)).resolves.toHaveLength(5);
    expect(told).toEqual(Array(5).fill('TEMPORAL_UNREACHABLE'));
    expect(describes).toBe(1);
    const later = f.follow(turn.handle, REF);
    await new Promise((resolve) => setTimeout(resolve, 200));
    fail();
    await expect(later).resolves.toMatchObject({ reason: 'TEMPORAL_UNREACHABLE' });
    expect(describes).toBe(2);
  });

  it("gives the turn's answer if it comes while Temporal is asked whether it answers", async () => {
    let describing: () => void = () => undefined;
    const asked = new Promise<void>((resolve) => (describing = resolve));
    const turn = fakeTurn(() => {
      describing();
      return new Promise(() => undefined);
    });
    const { followers: f, told } = followers(50);
    const reply = f.follow(turn.handle, REF);
    await asked;
    turn.answer(COMPLETED);
    await expect(reply).resolves.toMatchObject({ kind: 'COMPLETED' });
    expect(told).toEqual([]);
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
