import { status } from '@grpc/grpc-js';
import type { Client } from '@temporalio/client';
import { temporalInspector } from '../../api/console/temporal-inspector';

/** A gRPC error as @temporalio/client raises it for a server's answer. */
function grpcError(code: status): Error {
  return Object.assign(new Error(`${code}`), { code, details: 'from the server', metadata: {} });
}

function clientAnswering(err: Error): Client {
  const fail = async () => {
    throw err;
  };
  const workflowService = { resetActivity: fail, pauseActivity: fail, unpauseActivity: fail };
  return { options: { namespace: 'ns' }, workflowService } as unknown as Client;
}

describe("the console's activity operations on a server's answers", () => {
  it.each([
    [status.UNIMPLEMENTED, 501, 'ACTIVITY_OPERATION_UNSUPPORTED'],
    [status.NOT_FOUND, 404, 'ACTIVITY_NOT_FOUND'],
    [status.FAILED_PRECONDITION, 409, 'TURN_NOT_RUNNING'],
  ])('gRPC %s becomes %s %s', async (code, statusCode, errorCode) => {
    const inspector = temporalInspector(clientAnswering(grpcError(code)));
    for (const operation of ['reset', 'pause', 'unpause'] as const) {
      await expect(inspector.operateActivity('turn-x-1', '7', operation)).rejects.toMatchObject({
        statusCode,
        code: errorCode,
      });
    }
  });

  it('says which operation the server lacks', async () => {
    const inspector = temporalInspector(clientAnswering(grpcError(status.UNIMPLEMENTED)));
    await expect(inspector.operateActivity('turn-x-1', '7', 'pause')).rejects.toThrow(
      'This Temporal server does not support activity pause'
    );
  });
});
