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
function visibility(runs = RUNS) {
  const read = { calls: 0, rows: 0, counts: 0 };
  const bound = (query: string, op: string) => Number(new RegExp(`TurnNumber ${op} (\\d+)`).exec(query)?.[1] ?? NaN);
  function* matching(query: string) {
    const [after, through] = [bound(query, '>'), bound(query, '<=')];
    for (const wf of [...runs].reverse()) {
      const n = wf.searchAttributes['TurnNumber'] as number[];
      // Only this deployment's queue: another's runs under the same ids are not this conversation's.
      if (!query.startsWith(`ConversationId = '${ID}'`) || !query.endsWith(" AND TaskQueue = 'tq'")) continue;
      if ((n[0] as number) <= (after || 0) || (n[0] as number) > (through || Infinity)) continue;
      yield wf;
    }
  }
  async function* list({ query }: { query: string }) {
    read.calls++;
    for (const wf of matching(query)) {
      read.rows++;
      yield wf;
    }
  }
  async function count(query: string) {
    read.counts++;
    return { count: [...matching(query)].length, groups: [] };
  }
  const client = { options: { namespace: 'default' }, workflow: { list, count } } as unknown as Client;
  return { client, read };
}

describe("the console's turn list reads one page from Temporal's visibility (api/console/temporal-inspector.ts)", () => {
  it('reads the runs of the page and one row past it, not every turn of the conversation', async () => {
    const { client, read } = visibility();
    const page = await temporalInspector(client, 'tq').turns(ID, { after: 100, limit: 50 });
    // The page's 51 runs (turn 120 has two) and the one that says a turn follows: of 1,001 runs.
    expect(read).toEqual({ calls: 2, rows: 52, counts: 0 });
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
    expect(read).toEqual({ calls: 2, rows: 40, counts: 0 });
  });

  it('starts a page at the first turn Temporal still holds when a whole range fell past its retention', async () => {
    // Turns 1 to 637 are past retention: the first page would be empty but for "More turns".
    const { client, read } = visibility(RUNS.filter((wf) => (wf.searchAttributes['TurnNumber'] as number[])[0]! > 637));
    const page = await temporalInspector(client, 'tq').turns(ID, { after: 0, limit: 50 });
    expect(page.turns.map((t) => t.turnNumber)).toEqual(Array.from({ length: 50 }, (_, i) => 638 + i));
    expect(page.next).toBe(687);
    // Counting finds turn 638 in about 2·log2(gap) calls, not a page of list calls per empty range.
    expect(read.counts).toBeLessThanOrEqual(20);
    expect(read.calls).toBe(4);
    // A gap inside the conversation, after the page the caller is on, is skipped the same way.
    const gap = visibility(
      RUNS.filter((wf) => ![...Array(100).keys()].includes((wf.searchAttributes['TurnNumber'] as number[])[0]! - 201))
    );
    const next = await temporalInspector(gap.client, 'tq').turns(ID, { after: 200, limit: 50 });
    expect(next.turns[0]?.turnNumber).toBe(301);
  });
});
