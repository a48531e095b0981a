import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { temporalInspector } from '../../api/console/temporal-inspector';

const ID = '00000000-0000-4000-8000-00000000fb03';
const TURNS = 1000;
/** Turn 120 failed and was run again: two runs under its id. */
const RETRIED = 120;

function run(turnNumber: number, attempt = 0): WorkflowExecutionInfo {
  const started = Date.UTC(2026, 0, 1) + turnNumber * 60_000 + attempt * 1000;
  return {
    workflowId: `turn-${ID}-${turnNumber}`,
    runId: `run-${turnNumber}-${attempt}`,
    status: { name: attempt === 0 && turnNumber === RETRIED ? 'FAILED' : 'COMPLETED' },
    searchAttributes: { ConversationId: [ID], TurnNumber: [turnNumber] },
    startTime: new Date(started),
    closeTime: new Date(started + 500),
  } as unknown as WorkflowExecutionInfo;
}

const RUNS = [...Array.from({ length: TURNS }, (_, i) => run(i + 1)), run(RETRIED, 1)];

/**
 * Visibility over a 1,000-turn conversation, newest first as SQL visibility lists it, that answers the TurnNumber
 * bounds of a query and counts the calls made and the rows the caller took.
 */
function visibility() {
  const read = { calls: 0, rows: 0 };
  const bound = (query: string, op: string) => Number(new RegExp(`TurnNumber ${op} (\\d+)`).exec(query)?.[1] ?? NaN);
  async function* list({ query }: { query: string }) {
    read.calls++;
    const [after, through] = [bound(query, '>'), bound(query, '<=')];
    for (const wf of [...RUNS].reverse()) {
      const n = wf.searchAttributes['TurnNumber'] as number[];
      // Only this deployment's queue: another's runs under the same ids are not this conversation's.
      if (!query.startsWith(`ConversationId = '${ID}'`) || !query.endsWith(" AND TaskQueue = 'tq'")) continue;
      if ((n[0] as number) <= (after || 0) || (n[0] as number) > (through || Infinity)) continue;
      read.rows++;
      yield wf;
    }
  }
  const client = { options: { namespace: 'default' }, workflow: { list } } as unknown as Client;
  return { client, read };
}

describe("the console's turn list reads one page from Temporal's visibility (api/console/temporal-inspector.ts)", () => {
  it('reads the runs of the page and one row past it, not every turn of the conversation', async () => {
    const { client, read } = visibility();
    const page = await temporalInspector(client, 'tq').turns(ID, { after: 100, limit: 50 });
    // The page's 51 runs (turn 120 has two) and the one that says a turn follows: of 1,001 runs.
    expect(read).toEqual({ calls: 2, rows: 52 });
    expect(page.turns.map((t) => t.turnNumber)).toEqual(Array.from({ length: 50 }, (_, i) => 101 + i));
    expect(page.next).toBe(150);
    const retried = page.turns.find((t) => t.turnNumber === RETRIED);
    expect([retried?.runId, retried?.earlierRuns.map((r) => [r.runId, r.status])]).toEqual([
      `run-${RETRIED}-1`,
      [[`run-${RETRIED}-0`, 'FAILED']],
    ]);
  });

  it('says no turn follows on the last page', async () => {
    const { client, read } = visibility();
    const page = await temporalInspector(client, 'tq').turns(ID, { after: 960, limit: 50 });
    expect(page.turns.map((t) => t.turnNumber)).toEqual(Array.from({ length: 40 }, (_, i) => 961 + i));
    expect(page.next).toBeNull();
    expect(read).toEqual({ calls: 2, rows: 40 });
  });
});
