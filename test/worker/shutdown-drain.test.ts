/**
 * A stopping turn worker (SIGTERM to `convengine worker`, `convengine start`'s stop: both `requestStop`) lets the
 * activity it runs finish: the tool call in flight is answered and recorded once, not cut as WORKER_SHUTDOWN, counted
 * as a tool error and sent again by the next worker.
 */
import { createLogger } from '../../observability/logger';
import { captureLog } from '../support/log-capture';
import { startWorkerStopStack, until, type WorkerStopStack } from '../support/worker-stop-stack';

const TOOL_MS = 2_500;
const ORDER_STATUS = '/orders/status';

describe('a turn worker asked to stop while a tool call is in flight', () => {
  let stack: WorkerStopStack;

  beforeAll(async () => {
    stack = await startWorkerStopStack('drain');
  }, 120_000);
  afterAll(() => stack?.stop(), 60_000);

  it('finishes that call before it stops; the next worker ends the turn without calling the tool again', async () => {
    const { tools } = stack;
    tools.faults.set(ORDER_STATUS, { delayMs: TOOL_MS });
    const firstLog = captureLog();
    const first = await stack.startWorker(
      createLogger({ level: 'info', format: 'json', name: 'worker', destination: firstLog.stream })
    );
    stack.onStop(() => first.shutdown());
    const reply = stack.sendOrderTurn();
    await until(() => tools.counters.requests(ORDER_STATUS) === 1, 'the tool call');

    const asked = Date.now();
    expect(first.requestStop()).toBe(true);
    await first.done;
    // It waited for the tool's answer (the SDK's default grace, 0, cancels at once).
    expect(Date.now() - asked).toBeGreaterThan(TOOL_MS / 2);
    const toolSteps = firstLog.lines().filter((line) => line['tool'] === 'mock.order.status');
    expect(toolSteps.map((line) => line['msg'])).toEqual(['step completed']);

    const second = await stack.startWorker();
    stack.onStop(() => second.shutdown());
    const answered = await reply;
    expect(answered.status).toBe(200);
    const body = (await answered.json()) as { turn?: { outcome?: string } };
    expect(body.turn?.outcome).toBe('ANSWERED');
    expect(tools.counters.requests(ORDER_STATUS)).toBe(1);
  }, 120_000);
});
