import { noWorkerFor } from '../../api/turns/turn-worker';
import { PATCHES_BEFORE_MARKER, patchesSaidBy } from '../../observability/turn-patches';
import {
  countTurnPollers,
  patchesNoWorkerKnows,
  readTurnPollers,
  turnPollersCheck,
  turnWorkerIdentity,
  WORKER_SEEN_WITHIN_MS,
  type TurnPollers,
} from '../../observability/turn-pollers';
import { PARKED_MEMO_PATCH, TURN_PATCHES } from '../../workflows/turn-versions';
import { CURRENT_WORKER, fakeTemporalClient, OLDER_WORKER, UNMARKED_WORKER } from '../support/fake-temporal-client';

/** The reader of a turn task queue's pollers (observability/turn-pollers.ts): readiness and the decisions' gate. */
describe('turn pollers', () => {
  const current = turnWorkerIdentity('7@host-a');
  const older = '8@host-b runs=conversationTurnV2'; // a build marked with an older type than this build's
  // Builds from a1cc19c (conversationTurnV3) to 06a5174 (the marker) kept Temporal's default identity, pid@host.
  const unmarked = ['1@7f3c2a9d41be', '48213@ip-10-0-3-17.eu-west-1.compute.internal', '8@host-b'];
  const now = Date.now();
  /** The workers' counts as countTurnPollers gives them: this build's know every patch, the others do not say. */
  const counted = (current: number, older: number, unmarked: number): TurnPollers => ({
    current,
    older,
    unmarked,
    mayKnow: {
      current: current && TURN_PATCHES.length,
      older: older && PATCHES_BEFORE_MARKER,
      unmarked: unmarked && PATCHES_BEFORE_MARKER,
    },
    knowAll: current,
    unsaid: unmarked,
  });
  const polled = (identity: string, msAgo: number) => ({
    identity,
    lastAccessTime: { seconds: Math.floor((now - msAgo) / 1000), nanos: 0 },
  });

  it("marks a worker's identity with the turn type it runs and its patches, keeping the identity it was given", () => {
    expect(current).toBe(`7@host-a runs=conversationTurnV3 patches=${TURN_PATCHES.length}`);
    expect(turnWorkerIdentity()).toMatch(/^\d+@.+ runs=conversationTurnV3 patches=\d+$/);
    expect(patchesSaidBy(current)).toBe(TURN_PATCHES.length);
    // Builds before the patches marker, with or without the type's: they do not say.
    expect(patchesSaidBy('7@host-a runs=conversationTurnV3')).toBeNull();
    expect(patchesSaidBy('7@host-a')).toBeNull();
    expect(patchesSaidBy('7@host-a runs=conversationTurnV3 patches=x')).toBeNull();
  });

  it('lists every patch the turn workflows declare, extending the list of the builds before the marker', () => {
    expect(TURN_PATCHES.slice(0, PATCHES_BEFORE_MARKER)).toEqual([
      'local-first-steps',
      'local-step-runs',
      'wide-step-runs',
      'tool-hold-for-operator',
      'direct-tool-hold-for-operator',
      'approval-resumes-running',
      'turn-failure-row',
      'unwritten-failure-row',
      'turn-failure-outlasts-outage',
      'park-records-position',
      'approval-request-row',
      'turn-cancelled-row',
      'cancelled-turn-outcome',
      'planner-refuses-failed-direct-call',
      'cancelled-tool-call-stands',
      'shutdown-cut-write-held',
      'parked-call-memo',
    ]);
    expect(new Set(TURN_PATCHES).size).toBe(TURN_PATCHES.length);
  });

  it('counts what patches the workers polling know: what they say, else at most those before the marker', () => {
    const older16 = '9@host-c runs=conversationTurnV3 patches=16';
    const before = '9@host-d runs=conversationTurnV3';
    const counts = countTurnPollers([polled(current, 1_000), polled(older16, 1_000), polled(before, 1_000)], now);
    expect(counts).toMatchObject({ current: 3, mayKnow: { current: TURN_PATCHES.length }, knowAll: 1, unsaid: 1 });
    const oldOnly = countTurnPollers([polled(older16, 1_000)], now);
    expect(patchesNoWorkerKnows(oldOnly, 'conversationTurnV3', ['approval-request-row', PARKED_MEMO_PATCH])).toEqual([
      PARKED_MEMO_PATCH,
    ]);
    expect(patchesNoWorkerKnows(counts, 'conversationTurnV3', [PARKED_MEMO_PATCH])).toEqual([]);
    // A worker that does not say may know every patch of the builds before the marker, none after.
    const unsaid = countTurnPollers([polled(before, 1_000)], now);
    expect(patchesNoWorkerKnows(unsaid, 'conversationTurnV3', [PARKED_MEMO_PATCH])).toEqual([]);
    expect(patchesNoWorkerKnows(unsaid, 'conversationTurnV3', ['a-newer-builds-patch'])).toEqual([
      'a-newer-builds-patch',
    ]);
  });

  it('warns, ready, while no worker polling knows every patch this build records (a rollback, a rolling deploy)', () => {
    const older16 = countTurnPollers([polled('9@host-c runs=conversationTurnV3 patches=16', 1_000)], now);
    expect(turnPollersCheck(older16)).toEqual({
      check: 'ok',
      warning:
        `no worker polling knows all ${TURN_PATCHES.length} turn workflow patches this build records (1 say they ` +
        `know fewer): a turn that recorded one a worker lacks (the newest: ${TURN_PATCHES.at(-1)}) fails its ` +
        'workflow tasks there (TMPRL1100), and a decision on it cannot land: deploy workers of this build',
    });
    const before = countTurnPollers([polled('9@host-d runs=conversationTurnV3', 1_000)], now);
    expect(turnPollersCheck(before)).toEqual({
      check: 'ok',
      warning: expect.stringContaining('(1 of a build from before identities named their patches)'),
    });
    const both = countTurnPollers([polled(current, 1_000), polled('9@host-d runs=conversationTurnV3', 1_000)], now);
    expect(turnPollersCheck(both)).toEqual({ check: 'ok' });
  });

  it('counts the workers that polled within WORKER_SEEN_WITHIN_MS, by build', () => {
    const stale = WORKER_SEEN_WITHIN_MS + 5_000;
    const pollers = [polled(current, 1_000), polled(current, stale), polled(older, 1_000), polled(older, stale)];
    expect(countTurnPollers(pollers, now)).toEqual(counted(1, 1, 0));
    expect(countTurnPollers([{ identity: current }], now)).toEqual(counted(0, 0, 0));
  });

  it('counts a worker without the marker (a build before 06a5174) as unmarked, not as one of an older build', () => {
    const pollers = [...unmarked.map((identity) => polled(identity, 1_000)), polled(unmarked[0] ?? '', 90_000)];
    expect(countTurnPollers(pollers, now)).toEqual(counted(0, 0, 3));
  });

  it('is ready when a worker of this build polls, and not ready when none polls or only older ones do', () => {
    expect(turnPollersCheck(counted(1, 0, 0))).toEqual({ check: 'ok' });
    expect(turnPollersCheck(counted(0, 0, 0))).toEqual({ check: 'no worker polling' });
    expect(turnPollersCheck(counted(0, 2, 0))).toEqual({
      check: 'no worker polling runs conversationTurnV3: deploy workers of this build',
    });
  });

  it('warns, ready, while older workers poll beside current ones (a rolling deploy)', () => {
    expect(turnPollersCheck(counted(1, 1, 0))).toEqual({
      check: 'ok',
      warning: expect.stringMatching(/^1 of 2 workers polling do not run conversationTurnV3 \(an older build\)/),
    });
  });

  it('is ready, warning, while only workers without the marker poll: builds from a1cc19c on run the type', () => {
    const unmarkedWarning =
      '2 of 2 workers polling are of a build before 06a5174, whose identity does not say whether it runs ' +
      'conversationTurnV3 (builds from a1cc19c on do): deploy workers of this build';
    expect(turnPollersCheck(counted(0, 0, 2))).toEqual({
      check: 'ok',
      warning: expect.stringMatching(
        new RegExp(`^${unmarkedWarning.replace(/[()]/g, '\\$&')}; no worker polling knows`)
      ),
    });
    expect(turnPollersCheck(counted(1, 1, 1)).warning).toMatch(
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
