import type { RouteFault } from '../../demo/tool-server';
import { replyMismatches } from './support/invariants';
import { checkStack, report } from './support/report';
import { ReliabilityStack } from './support/stack';
import { demoTraffic, runTraffic, type ConversationRecord } from './support/traffic';

/**
 * Scenario 5: the loan flow's HTTP write tool (loan.application.submit, an IDEMPOTENT_WRITE) fails,
 * times out after the write was applied, and flaps — one fault per phase of three concurrent loan
 * conversations. Retries happen at two levels (the tool row's own HTTP attempts, then Temporal's
 * activity attempts) and every attempt carries the same Idempotency-Key, so each application is
 * applied exactly once however many requests reach the server. Every fault stays within the retry
 * budget (2 HTTP attempts × 3 activity attempts), so every turn must end as recorded.
 */
const SUBMIT_ROUTE = '/loan/applications';
const LOANS_PER_PHASE = 3;

interface Phase {
  name: string;
  fault: RouteFault;
  /** Requests the faults add on top of one per application (each failed request is retried once). */
  extraRequests: number;
}

const PHASES: Phase[] = [
  { name: 'fails with 503 (HTTP-level retries)', fault: { failTimes: 4, status: 503 }, extraRequests: 4 },
  { name: 'fails with 500 (activity-level retries)', fault: { failTimes: 2, status: 500 }, extraRequests: 2 },
  {
    name: 'applies, then answers after the read timeout',
    fault: { applyThenTimeout: { times: LOANS_PER_PHASE, delayMs: 3_500 } },
    extraRequests: LOANS_PER_PHASE,
  },
  { name: 'flaps (every other request fails)', fault: { flap: true, status: 503 }, extraRequests: LOANS_PER_PHASE },
];

describe('reliability: an idempotent HTTP write tool that fails, times out after applying, and flaps (issue #8, scenario 5)', () => {
  let stack: ReliabilityStack;

  beforeAll(async () => {
    stack = await ReliabilityStack.start({
      temporal: 'embedded',
      workers: 2,
      // 2 s instead of the seed's 5 s read timeout keeps the applied-then-late phase short.
      configSql: [
        `UPDATE ce_mcp_http_tool SET read_timeout_ms = 2000
          WHERE tool_id = (SELECT tool_id FROM ce_mcp_tool WHERE tool_code = 'loan.application.submit')`,
      ],
    });
  }, 180_000);
  afterAll(async () => stack?.stop(), 60_000);

  it('applies every application exactly once and completes every turn as recorded', async () => {
    const started = Date.now();
    const records: ConversationRecord[] = [];
    const requestsPerPhase: Record<string, number> = {};
    for (const phase of PHASES) {
      const before = stack.tools.counters.requests(SUBMIT_ROUTE);
      stack.tools.faults.set(SUBMIT_ROUTE, phase.fault);
      const phaseRecords = await runTraffic(stack.gateway(), demoTraffic({ 'loan-confirmation': LOANS_PER_PHASE }), {
        concurrency: LOANS_PER_PHASE,
        turnDeadlineMs: 90_000,
        diagnose: (id) => stack.diagnose(id),
      });
      stack.tools.faults.clear(SUBMIT_ROUTE);
      records.push(...phaseRecords);
      requestsPerPhase[phase.name] = stack.tools.counters.requests(SUBMIT_ROUTE) - before;
    }
    const { violations, evidence } = await checkStack(stack, records);
    report(
      'write-tool-faults',
      records,
      { ...requestsPerPhase, 'write effects': stack.tools.counters.totalWriteEffects() },
      evidence,
      started
    );

    for (const phase of PHASES) {
      expect([phase.name, requestsPerPhase[phase.name]]).toEqual([phase.name, LOANS_PER_PHASE + phase.extraRequests]);
    }
    const keys = new Set(
      stack.tools.counters.log.filter((r) => r.route === SUBMIT_ROUTE).map((r) => r.headers['idempotency-key'])
    );
    expect(keys.size).toBe(PHASES.length * LOANS_PER_PHASE);
    expect([...keys].map((k) => stack.tools.counters.writeEffects(String(k)))).toEqual([...keys].map(() => 1));
    expect(stack.tools.counters.totalWriteEffects()).toBe(PHASES.length * LOANS_PER_PHASE);
    expect(replyMismatches(records)).toEqual([]);
    expect(violations).toEqual([]);
  }, 300_000);
});
