import { noWorkerFor } from '../../api/turns/turn-worker';
import {
  countTurnPollers,
  readTurnPollers,
  turnPollersCheck,
  turnWorkerIdentity,
  WORKER_SEEN_WITHIN_MS,
} from '../../observability/turn-pollers';
import { CURRENT_WORKER, fakeTemporalClient, OLDER_WORKER } from '../support/fake-temporal-client';

/** The reader of a turn task queue's pollers (observability/turn-pollers.ts): readiness and the decisions' gate. */
describe('turn pollers', () => {
  const current = turnWorkerIdentity('7@host-a');
  const older = '8@host-b'; // an older build's identity: Temporal's default, no marker
  const now = Date.now();
  const polled = (identity: string, msAgo: number) => ({
    identity,
    lastAccessTime: { seconds: Math.floor((now - msAgo) / 1000), nanos: 0 },
  });

  it("marks a worker's identity with the turn type it runs, keeping the identity it was given", () => {
    expect(current).toBe('7@host-a runs=conversationTurnV3');
    expect(turnWorkerIdentity()).toMatch(/^\d+@.+ runs=conversationTurnV3$/);
  });

  it('counts the workers that polled within WORKER_SEEN_WITHIN_MS, by build', () => {
    const stale = WORKER_SEEN_WITHIN_MS + 5_000;
    const pollers = [polled(current, 1_000), polled(current, stale), polled(older, 1_000), polled(older, stale)];
    expect(countTurnPollers(pollers, now)).toEqual({ current: 1, older: 1 });
    expect(countTurnPollers([{ identity: current }], now)).toEqual({ current: 0, older: 0 });
  });

  it('is ready when a worker of this build polls, and not ready when none polls or only older ones do', () => {
    expect(turnPollersCheck({ current: 1, older: 0 })).toEqual({ check: 'ok' });
    expect(turnPollersCheck({ current: 0, older: 0 })).toEqual({ check: 'no worker polling' });
    expect(turnPollersCheck({ current: 0, older: 2 })).toEqual({
      check: 'no worker polling runs conversationTurnV3: deploy workers of this build',
    });
  });

  it('warns, ready, while older workers poll beside current ones (a rolling deploy)', () => {
    expect(turnPollersCheck({ current: 1, older: 1 })).toEqual({
      check: 'ok',
      warning: expect.stringMatching(/^1 of 2 workers polling do not run conversationTurnV3 \(an older build\)/),
    });
  });

  it("agrees with the decisions' gate: no decision on a current turn where readiness finds no worker", async () => {
    const cases = [
      { identity: CURRENT_WORKER, msAgo: 1_000 },
      { identity: OLDER_WORKER, msAgo: 1_000 },
      { identity: CURRENT_WORKER, msAgo: WORKER_SEEN_WITHIN_MS + 5_000 },
    ];
    for (const { identity, msAgo } of cases) {
      const client = fakeTemporalClient({}, msAgo, identity);
      const ready = turnPollersCheck(await readTurnPollers(client.connection, 'default', 'q')).check === 'ok';
      const gateOpen = (await noWorkerFor(client, 'q', 'conversationTurnV3')) === null;
      expect({ identity, msAgo, gateOpen }).toEqual({ identity, msAgo, gateOpen: ready });
    }
  });
});
