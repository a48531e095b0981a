/**
 * How `convengine worker` reports a run that ended in failure: one line that says why, instead of the SDK's own text
 * (a stop cut off by the force margin surfaced as "Worker still in use: Expected 1 reference, but got 2", printed raw
 * by bin/convengine.js with exit 1 and no log line).
 */
import { PassThrough } from 'node:stream';
import { workerEnd } from '../../cli/commands/worker';
import { loadEnv } from '../../config/env';
import { createLogger } from '../../observability/logger';
import type { RunningWorker } from '../../worker/main';
import { SHUTDOWN_FORCE_MARGIN_MS } from '../../worker/worker';
import { captureLog } from '../support/log-capture';

const SDK_TEXT = 'Worker still in use: Expected 1 reference, but got 2';

function ended(done: Promise<void>): RunningWorker {
  return {
    done,
    probeUrl: null,
    requestStop: () => false,
    shutdown: () => done.catch(() => undefined),
    databaseReadiness: async () => 'ok',
  };
}

async function end(done: Promise<void>, stopAsked: boolean) {
  const log = captureLog();
  const errors: string[] = [];
  const io = { out: () => undefined, err: (line: string) => errors.push(line), stdin: new PassThrough() };
  const logger = createLogger({ level: 'info', format: 'json', name: 'worker', destination: log.stream });
  const env = loadEnv({ WORKER_SHUTDOWN_GRACE_MS: '5000' });
  const code = await workerEnd(ended(done), { env, stopAsked: () => stopAsked, logger, io });
  return { code, errors, lines: log.lines() };
}

describe('convengine worker, once its worker ran', () => {
  it('exits 0 when the worker stopped', async () => {
    expect(await end(Promise.resolve(), true)).toEqual({ code: 0, errors: [], lines: [] });
  });

  it('says a stop was cut off by force, and why, in one line and one error log line, and exits 1', async () => {
    const { code, errors, lines } = await end(Promise.reject(new Error(SDK_TEXT)), true);
    const line =
      `worker stopped by force: an activity was still running ${5000 + SHUTDOWN_FORCE_MARGIN_MS} ms after the stop ` +
      `(WORKER_SHUTDOWN_GRACE_MS, then ${SHUTDOWN_FORCE_MARGIN_MS} ms after its cancellation); ` +
      'Temporal retries it once its heartbeat times out';
    expect({ code, errors }).toEqual({ code: 1, errors: [line] });
    expect(lines).toEqual([
      expect.objectContaining({ level: 'error', msg: line, err: expect.objectContaining({ message: SDK_TEXT }) }),
    ]);
  });

  it('names the cause of a run that failed without a stop, and exits 1', async () => {
    const cause = new Error('connection lost', { cause: new Error('Connection refused') });
    const { code, errors } = await end(Promise.reject(cause), false);
    expect({ code, errors }).toEqual({ code: 1, errors: ['worker failed: connection lost: Connection refused'] });
  });
});
