/**
 * Doctor's round-trip probe stands in for the turn worker to price its round trips, but built its worker without the
 * turn worker's activity interceptors: no failure sealer (with PAYLOAD_ENCRYPTION_KEYS set, an activity's failure text
 * left it in clear) and no attempt-start note. It now takes them from turnActivityInterceptors, as createTurnWorker does.
 */
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { Connection } from '@temporalio/client';
import { attemptStartInterceptor } from '../../activities/runtime/database-outage';
import { failureSealer } from '../../activities/runtime/sealed-failure';
import { localTemporal } from '../../config/temporal-connection';
import { probeActivityRoundTrip } from '../../worker/probe';

jest.mock('../../worker/bundle-cache', () => ({
  runnableWorkflowSource: async () => ({ workflowBundle: { code: '' } }),
}));

/** The options the probe builds its worker with (the worker is never created: no server is needed). */
async function probeWorkerOptions(sealFailureText: boolean): Promise<WorkerOptions> {
  const closable = { close: async () => undefined };
  jest.spyOn(NativeConnection, 'connect').mockResolvedValue(closable as never);
  jest.spyOn(Connection, 'connect').mockResolvedValue(closable as never);
  let built: WorkerOptions | undefined;
  jest.spyOn(Worker, 'create').mockImplementation((options) => {
    built = options;
    return Promise.reject(new Error('not built'));
  });
  const target = { temporal: localTemporal('127.0.0.1:1'), namespace: 'default', compression: 'none' as const };
  await expect(probeActivityRoundTrip({ ...target, workflowBundle: {}, sealFailureText })).rejects.toThrow('not built');
  if (!built) throw new Error('no worker options');
  return built;
}

afterEach(() => jest.restoreAllMocks());

test.each([
  [true, [failureSealer, attemptStartInterceptor]],
  [false, [attemptStartInterceptor]],
])("the probe's worker runs under the turn worker's activity interceptors (sealing: %s)", async (seal, expected) => {
  expect((await probeWorkerOptions(seal)).interceptors?.activity).toEqual(expected);
});
