import { noWorkerFor } from '../../api/turns/turn-worker';
import {
  countTurnPollers,
  readTurnPollers,
  turnPollersCheck,
  turnWorkerIdentity,
  WORKER_SEEN_WITHIN_MS,
} from '../../observability/turn-pollers';
import { CURRENT_WORKER, fakeTemporalClient, OLDER_WORKER, UNMARKED_WORKER } from '../support/fake-temporal-client';

/** The reader of a turn task queue's pollers (observability/turn-pollers.ts): readiness and the decisions' gate. */
describe('turn pollers', () => {
  const current = turnWorkerIdentity('7@host-a');
  const older = '8@host-b runs=conversationTurnV2'; // a build marked with an older type than this build's
  // Builds from a1cc19c (conversationTurnV3) to 06a5174 (the marker) kept Temporal's default identity, pid@host.
  const unmarked = ['1@7f3c2a9d41be', '48213@ip-10-0-3-17.eu-west-1.compute.internal', '8@host-b'];
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
    expect(countTurnPollers(pollers, now)).toEqual({ current: 1, older: 1, unmarked: 0 });
    expect(countTurnPollers([{ identity: current }], now)).toEqual({ current: 0, older: 0, unmarked: 0 });
  });

  it('counts a worker without the marker (a build before 06a5174) as unmarked, not as one of an older build', () => {
    const pollers = [...unmarked.map((identity) => polled(identity, 1_000)), polled(unmarked[0] ?? '', 90_000)];
    expect(countTurnPollers(pollers, now)).toEqual({ current: 0, older: 0, unmarked: 3 });
  });

  it('is ready when a worker of this build polls, and not ready when none polls or only older ones do', () => {
    expect(turnPollersCheck({ current: 1, older: 0, unmarked: 0 })).toEqual({ check: 'ok' });
    expect(turnPollersCheck({ current: 0, older: 0, unmarked: 0 })).toEqual({ check: 'no worker polling' });
    expect(turnPollersCheck({ current: 0, older: 2, unmarked: 0 })).toEqual({
      check: 'no worker polling runs conversationTurnV3: deploy workers of this build',
    });
  });

  it('warns, ready, while older workers poll beside current ones (a rolling deploy)', () => {
    expect(turnPollersCheck({ current: 1, older: 1, unmarked: 0 })).toEqual({
      check: 'ok',
      warning: expect.stringMatching(/^1 of 2 workers polling do not run conversationTurnV3 \(an older build\)/),
    });
  });

  it('is ready, warning, while only workers without the marker poll: builds from a1cc19c on run the type', () => {
    const unmarkedWarning =
      '2 of 2 workers polling are of a build before 06a5174, whose identity does not say whether it runs ' +
      'conversationTurnV3 (builds from a1cc19c on do): deploy workers of this build';
    expect(turnPollersCheck({ current: 0, older: 0, unmarked: 2 })).toEqual({ check: 'ok', warning: unmarkedWarning });
    expect(turnPollersCheck({ current: 1, older: 1, unmarked: 1 }).warning).toMatch(
      /^1 of 3 workers polling do not run .*; 1 of 3 workers polling are of a build before 06a5174/
    );
  });

  it("agrees with the decisions' gate: no decision on a current turn where readiness finds no worker", async () => {
    const cases = [
      { identity: CURRENT_WORKER, msAgo: 1_000 },
      { identity: OLDER_WORKER, msAgo: 1_000 },
      { identity: UNMARKED_WORKER, msAgo: 1_000 },
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
