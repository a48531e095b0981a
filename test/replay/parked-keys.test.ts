import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importHistory } from '../../cli/history/json';
import { activityEntries } from '../support/history';
import { WorkflowHarness } from '../support/workflow-harness';
import { PARKED_SET, recordParkedTurns } from './export-parked-histories';

/** The parked fixtures recorded with every patch a parked turn asks today. */
const LATEST_PARKED_SET = 'v3-parked-memo';

type Events = Parameters<typeof activityEntries>[0];

/** What a turn scheduled, in order: each activity's type and call key (its audit rows' and the tool's key). */
function scheduled(events: Events): string[] {
  return activityEntries(events).map((a) => {
    const input = a.input as { callKey?: string; verifiedResult?: unknown } | undefined;
    const verified = input?.verifiedResult !== undefined ? ' (verified result)' : '';
    return `${a.type} ${a.local ? '(local)' : (input?.callKey ?? '')}${verified}`;
  });
}

const recordedIn = (set: string, name: string): Events =>
  importHistory(readFileSync(join(__dirname, 'histories', set, `${name}.json`), 'utf8')).events ?? [];

/**
 * The keys of a held call's hold, retry and markDone are in the histories of turns parked when a release
 * ships, and key audit rows and tool calls: the same turns run today schedule what the latest parked
 * fixtures did, key for key, and a held call what the v3-parked ones (recorded before core/mcp/hold.ts
 * resolveHeldCall) did. Only an approval schedules more since: the McpToolHold that writes its request row
 * as the turn parks (APPROVAL_REQUEST_ROW_PATCH).
 */
describe('parked turns schedule what they did when the fixtures were recorded', () => {
  let h: WorkflowHarness;
  beforeAll(async () => {
    h = await WorkflowHarness.start();
  });
  afterAll(async () => h?.stop());

  it('for approvals and for planner and direct calls held and retried, marked done or skipped', async () => {
    const parked = await recordParkedTurns(h);
    expect(parked.length).toBeGreaterThanOrEqual(7);
    for (const turn of parked) {
      const now = scheduled(await h.history(turn.workflowId));
      expect({ turn: turn.name, scheduled: now }).toEqual({
        turn: turn.name,
        scheduled: scheduled(recordedIn(LATEST_PARKED_SET, turn.name)),
      });
      if (turn.name.startsWith('approval-')) continue;
      expect({ turn: turn.name, scheduled: now }).toEqual({
        turn: turn.name,
        scheduled: scheduled(recordedIn(PARKED_SET, turn.name)),
      });
    }
  });
});
