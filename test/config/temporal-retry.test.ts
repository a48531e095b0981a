/**
 * A client connection closed while one of its calls retries (the server down, the call waiting out its backoff):
 * the call fails, CANCELLED, and nothing throws. The SDK's own retry sends the next attempt from a timer, where
 * grpc-js's "Channel has been shut down" was thrown uncaught and ended the process (config/temporal-retry.ts).
 */
import * as grpc from '@grpc/grpc-js';
import { Connection } from '@temporalio/client';
import { clientConnectionOptions, isTemporalUnreachable } from '../../config/temporal-client';
import { localTemporal } from '../../config/temporal-connection';
import { startTcpSwitch, type TcpSwitch } from '../support/tcp-switch';

describe('a client connection closed while a call retries', () => {
  let down: TcpSwitch;
  beforeAll(async () => {
    // A server that went away: each connection is closed as it arrives, and every attempt fails UNAVAILABLE.
    down = await startTcpSwitch(1);
    down.set('down');
  });
  afterAll(async () => {
    await down?.stop();
  });

  it('ends the call with CANCELLED, not an uncaught throw from the retry due after the close', async () => {
    const connection = Connection.lazy(clientConnectionOptions(localTemporal(down.address)));
    const failure = connection.workflowService.getSystemInfo({}).then(
      () => null,
      (err: unknown) => err
    );
    // Long enough for attempts to have failed (the first retry is due 0.1 to 0.2 s after a failure), far from the
    // ten attempts' 20 s: the call is retrying when the connection closes.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await connection.close();
    const err = await failure;
    expect(err).toMatchObject({ code: grpc.status.CANCELLED });
    // Not a server that is down: the connection's owner ended the call.
    expect(isTemporalUnreachable(err)).toBe(false);
  });
});
