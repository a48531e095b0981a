/**
 * A database belongs to one Temporal deployment (namespace and task queue, db/deployment.ts, migration 0026): the
 * first process binds it, a process of another deployment is refused with both named, and only a deliberate rebind
 * moves it. Two deployments once shared infrastructure with nothing to tell their databases apart.
 */
import {
  bindOwnDeployment,
  claimDeployment,
  DeploymentMismatchError,
  readDeploymentBinding,
  rebindDeployment,
} from '../../db/deployment';
import { createTestDatabase, type TestDatabase } from '../support/database';

jest.setTimeout(60_000);

const A = { namespace: 'default', taskQueue: 'team-a-turns' };
const B = { namespace: 'default', taskQueue: 'team-b-turns' };

describe('the deployment binding', () => {
  let tdb: TestDatabase;
  beforeEach(async () => {
    tdb = await createTestDatabase();
  });
  afterEach(async () => tdb?.drop());

  it('is absent on a database nothing started on, and the first process to claim it binds it', async () => {
    expect(await readDeploymentBinding(tdb.pool)).toBeNull();
    const bound = await claimDeployment(tdb.pool, A);
    expect(bound).toEqual({ ...A, boundAt: expect.any(Date) });
    expect(await readDeploymentBinding(tdb.pool)).toEqual(bound);
    // A later claim, of whatever deployment, reads the binding and changes nothing.
    expect(await claimDeployment(tdb.pool, B)).toEqual(bound);
  });

  it('binds one deployment when two claim an unbound database at once', async () => {
    const claims = await Promise.all([A, B, A, B].map((own) => claimDeployment(tdb.pool, own)));
    const first = claims[0]!;
    expect(claims).toEqual([first, first, first, first]);
    const { rows } = await tdb.pool.query('SELECT count(*)::int AS n FROM ce_deployment');
    expect(rows).toEqual([{ n: 1 }]);
  });

  it("refuses another deployment's process, naming the database, both deployments and the rebind command", async () => {
    await bindOwnDeployment(tdb.pool, A);
    const refusal = await bindOwnDeployment(tdb.pool, B).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(DeploymentMismatchError);
    const message = (refusal as Error).message;
    expect(message).toContain(`the database at 127.0.0.1:5432/${tdb.name} belongs to another deployment`);
    expect(message).toContain('bound to Temporal namespace "default", task queue "team-a-turns" (since ');
    expect(message).toContain('this process has namespace "default", task queue "team-b-turns"');
    expect(message).toContain('`convengine migrate --bind-deployment`');
    expect(message).not.toContain('postgres@');
    // Another namespace with the same queue is another deployment too.
    await expect(bindOwnDeployment(tdb.pool, { ...A, namespace: 'staging' })).rejects.toThrow(DeploymentMismatchError);
    await expect(bindOwnDeployment(tdb.pool, A)).resolves.toMatchObject(A);
  });

  it('moves only on a rebind, which returns the binding it replaced', async () => {
    expect(await rebindDeployment(tdb.pool, A)).toBeNull();
    expect(await rebindDeployment(tdb.pool, B)).toMatchObject(A);
    expect(await readDeploymentBinding(tdb.pool)).toMatchObject(B);
    await expect(bindOwnDeployment(tdb.pool, A)).rejects.toThrow(DeploymentMismatchError);
  });

  it('is nothing to claim on a database without migration 0026: the process binds it once migrated', async () => {
    const bare = await createTestDatabase({ migrated: false });
    try {
      expect(await claimDeployment(bare.pool, A)).toBeNull();
      expect(await bindOwnDeployment(bare.pool, A)).toBeNull();
      expect(await readDeploymentBinding(bare.pool)).toBeNull();
    } finally {
      await bare.drop();
    }
  });
});
