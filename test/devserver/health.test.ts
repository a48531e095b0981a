/**
 * The standard gRPC health service, grpc.health.v1.Health/Check, as the real frontend answers it:
 * `convengine setup-temporal` checks it first, and an UNIMPLEMENTED there kept it waiting two minutes.
 */
import { Connection } from '@temporalio/client';
import { getTestTemporal, type TestTemporal } from '../support/temporal';

const NOT_FOUND = 5;
const SERVING = 1;

describe('grpc.health.v1.Health', () => {
  let temporal: TestTemporal;
  let connection: Connection;
  beforeAll(async () => {
    temporal = await getTestTemporal();
    connection = await Connection.connect({ address: temporal.address });
  });
  afterAll(async () => {
    await connection?.close();
    await temporal?.stop();
  });

  it.each(['', 'temporal.api.workflowservice.v1.WorkflowService'])(
    'answers SERVING for service %j',
    async (service) => {
      expect(await connection.healthService.check({ service })).toMatchObject({ status: SERVING });
    }
  );

  it('answers NOT_FOUND for a service it does not serve', async () => {
    await expect(connection.healthService.check({ service: 'no.such.Service' })).rejects.toMatchObject({
      code: NOT_FOUND,
    });
  });
});
