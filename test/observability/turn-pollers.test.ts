import { turnPollersCheck, turnWorkerIdentity } from '../../observability/turn-pollers';

/** The API's `worker` readiness check from the identities polling its task queue (observability/turn-pollers.ts). */
describe('turn pollers', () => {
  const current = turnWorkerIdentity('7@host-a');
  const older = '8@host-b'; // an older build's identity: Temporal's default, no marker

  it("marks a worker's identity with the turn type it runs, keeping the identity it was given", () => {
    expect(current).toBe('7@host-a runs=conversationTurnV3');
    expect(turnWorkerIdentity()).toMatch(/^\d+@.+ runs=conversationTurnV3$/);
  });

  it('is ready when a worker of this build polls, and not ready when none polls or only older ones do', () => {
    expect(turnPollersCheck([current])).toEqual({ check: 'ok' });
    expect(turnPollersCheck([])).toEqual({ check: 'no worker polling' });
    expect(turnPollersCheck([older, older])).toEqual({
      check: 'no worker polling runs conversationTurnV3: deploy workers of this build',
    });
  });

  it('warns, ready, while older workers poll beside current ones (a rolling deploy)', () => {
    expect(turnPollersCheck([current, older])).toEqual({
      check: 'ok',
      warning: expect.stringMatching(/^1 of 2 workers polling do not run conversationTurnV3 \(an older build\)/),
    });
  });
});
