/**
 * `convengine worker` stopped with SIGTERM while a model call runs longer than WORKER_SHUTDOWN_GRACE_MS: after the
 * grace the call is aborted (the model server sees the connection close), the activity ends cancelled, the worker
 * exits 0, and the turn goes on at once on the other worker, which makes the same call again. Before, the call ran on
 * unaware of the cancellation, the worker exited 1 ten seconds later with "Worker still in use", and the turn
 * waited for the attempt's heartbeat timeout.
 */
import { WORKER_SHUTDOWN_GRACE_DEFAULT_MS } from '../../config/env';
import { ConvengineProcess } from '../support/child-processes';
import { startWorkerStopStack, until, type WorkerStopStack } from '../support/worker-stop-stack';

/** Far longer than the grace, the force margin after it and the heartbeat timeout together. */
const MODEL_MS = 40_000;
/** What the abort, the worker's own stop and a loaded machine may add to the grace. */
const MARGIN_MS = 3_000;

describe('a worker stopped with SIGTERM while a model call outlasts its grace', () => {
  let stack: WorkerStopStack;

  beforeAll(async () => {
    stack = await startWorkerStopStack('model-stop');
  }, 120_000);
  afterAll(() => stack?.stop(), 60_000);

  it('aborts the call after the grace, exits 0, and the other worker answers the turn without waiting', async () => {
    const { llm } = stack;
    const first = await ConvengineProcess.start(['worker'], {
      name: 'worker running the model call',
      env: { ...stack.variables, WORKER_METRICS_PORT: '0', LOG_FORMAT: 'json' },
      ready: /worker polling/,
      readyTimeoutMs: 120_000,
    });
    stack.onStop(() => first.kill('SIGKILL'));
    // The turn's first model call answers only after MODEL_MS; the same call made again answers at once.
    llm.setFaults([{ every: 1, limit: 1, fault: { delayMs: MODEL_MS } }]);
    const reply = stack.sendOrderTurn();
    await until(() => llm.requests.length === 1, 'the model call');
    const second = await stack.startWorker();
    stack.onStop(() => second.shutdown());

    const asked = Date.now();
    first.child.kill('SIGTERM');
    const code = await first.exited;
    const exitedAfter = Date.now() - asked;
    const slow = llm.requests[0];
    expect({ code, tail: code === 0 ? '' : first.tail() }).toEqual({ code: 0, tail: '' });
    expect(exitedAfter).toBeLessThan(WORKER_SHUTDOWN_GRACE_DEFAULT_MS + MARGIN_MS);
    // The call ran through the grace, then was aborted: the connection closed, long before the answer was due.
    expect(slow?.hungUpAt).toBeDefined();
    const hungUpAfter = (slow?.hungUpAt ?? Infinity) - asked;
    expect(hungUpAfter).toBeGreaterThanOrEqual(WORKER_SHUTDOWN_GRACE_DEFAULT_MS - 500);
    expect(hungUpAfter).toBeLessThan(WORKER_SHUTDOWN_GRACE_DEFAULT_MS + MARGIN_MS);
    expect(first.tail()).not.toMatch(/still in use|"level":"error"/);

    const answered = await reply;
    expect(answered.status).toBe(200);
    const body = (await answered.json()) as { turn?: { outcome?: string } };
    expect(body.turn?.outcome).toBe('ANSWERED');
    // Retried as the cancelled attempt failed, not once its heartbeat timed out (10 s after the worker was gone).
    expect(Date.now() - asked).toBeLessThan(WORKER_SHUTDOWN_GRACE_DEFAULT_MS + 8_000);
    // The same call again, on the other worker: the cancelled one left no answer of its own (the DA step's regex
    // guess did not stand in for it).
    const again = llm.requests[1];
    expect({ kind: again?.kind, userText: again?.userText }).toEqual({ kind: slow?.kind, userText: slow?.userText });
  }, 180_000);
});
