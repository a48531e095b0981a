import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importHistory } from '../../cli/history/json';
import { activityEntries } from '../support/history';
import { WorkflowHarness } from '../support/workflow-harness';
import { PARKED_SET, recordParkedTurns } from './export-parked-histories';

type Events = Parameters<typeof activityEntries>[0];

/** What a turn scheduled, in order: each activity's type and call key (its audit rows' and the tool's key). */
function scheduled(events: Events): string[] {
  return activityEntries(events).map((a) => {
    const input = a.input as { callKey?: string; verifiedResult?: unknown } | undefined;
    const verified = input?.verifiedResult !== undefined ? ' (verified result)' : '';
    return `${a.type} ${a.local ? '(local)' : (input?.callKey ?? '')}${verified}`;
  });
}

/**
 * The keys of a held call's hold, retry and markDone are in the histories of turns parked when a release
 * ships, and key audit rows and tool calls: the same turns run today schedule what the v3-parked
 * fixtures (recorded before core/mcp/hold.ts resolveHeldCall) did, key for key.
 */
describe('parked turns schedule what they did when the fixtures were recorded', () => {
  let h: WorkflowHarness;
  beforeAll(async () => {
    h = await WorkflowHarness.start();
  });
  afterAll(async () => h?.stop());

  it('for approvals and for planner and direct calls held and retried, marked done or skipped', async () => {
    const dir = join(__dirname, 'histories', PARKED_SET);
    const parked = await recordParkedTurns(h);
    expect(parked.length).toBeGreaterThanOrEqual(7);
    for (const turn of parked) {
      const recorded = importHistory(readFileSync(join(dir, `${turn.name}.json`), 'utf8')).events ?? [];
      const now = await h.history(turn.workflowId);
      expect({ turn: turn.name, scheduled: scheduled(now) }).toEqual({
        turn: turn.name,
        scheduled: scheduled(recorded),
      });
    }
  });
});
