import { randomBytes } from 'node:crypto';
import { whatifConversation } from '../../activities/whatif/replay';
import { WhatifCannotRunError } from '../../activities/whatif/scratch';
import { buildApi } from '../../api/app';
import { DEMO_CONVERSATIONS } from '../../demo/conversations';
import { runConversations } from '../../demo/demo-runner';
import { whatifInProcess } from './whatif-recorded';
import { DemoHarness } from '../demo/demo-harness';
import { fakePorts } from '../support/fake-ports';

jest.setTimeout(120_000);

/**
 * A database the replay cannot write its scratch rows to is not a difference the draft makes: `convengine whatif`
 * exits 3 ("the replay could not run") and names the cause, as GET /api/v1/whatif answers with an error, not with
 * every turn "changed". A database that only defaults to read-only transactions is no such obstacle.
 */
describe('convengine whatif on a database it cannot write to', () => {
  let demo: DemoHarness;
  let conversationId: string;
  const loan = DEMO_CONVERSATIONS.filter((c) => c.name === 'loan-confirmation');

  beforeAll(async () => {
    demo = await DemoHarness.start();
    const records = await runConversations(loan, demo.send);
    expect(records.filter((r) => !r.ok)).toEqual([]);
    conversationId = records[0]?.conversationId as string;
  });
  afterAll(async () => demo?.stop());

  /** GET /api/v1/whatif for the recorded conversation, as the console's What-if panel asks it. */
  async function apiReplay() {
    const db = demo.tdb.db;
    const whatifQueries = {
      conversation: (id: string, version: string, { maxTurns }: { maxTurns: number }) =>
        whatifConversation({ db }, { conversationId: id, config: { version }, maxTurns }),
    };
    const app = buildApi({
      ports: fakePorts({ whatif: whatifQueries }),
      apiToken: 't',
      messageMaxBytes: 8192,
      logLevel: 'silent',
    });
    try {
      const url = `/api/v1/whatif?conversation=${conversationId}&config=current`;
      return await app.inject({ method: 'GET', url, headers: { authorization: 'Bearer t' } });
    } finally {
      await app.close();
    }
  }
  const replay = (url: string) =>
    whatifInProcess(url, ['--config', 'current', '--conversation', conversationId, '--fail-on-diff']);

  it('replays as usual where transactions are read-only by default (default_transaction_read_only=on)', async () => {
    await demo.tdb.pool.query(`alter database ${demo.tdb.name} set default_transaction_read_only = on`);
    try {
      const run = await replay(demo.tdb.url);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(run.stdout.trim().split('\n').at(-1)).toBe('1 conversation(s), 3 turn(s): 3 same');
    } finally {
      await demo.tdb.pool.query(`alter database ${demo.tdb.name} reset default_transaction_read_only`);
    }
  });

  it('exits 3, naming the cause, when a write is refused as on a hot standby (SQLSTATE 25006)', async () => {
    const { pool } = demo.tdb;
    await pool.query(`create function ce_test_standby() returns trigger language plpgsql as $$ begin
      raise exception 'cannot execute INSERT in a read-only transaction' using errcode = '25006'; end $$`);
    await pool.query('create trigger ce_test_standby before insert on ce_audit execute function ce_test_standby()');
    try {
      const run = await replay(demo.tdb.url);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(
        /^whatif failed: the replay could not run: .*read-only transaction \(SQLSTATE 25006\)/
      );
      expect(run.code).toBe(3);
      const direct = whatifConversation({ db: demo.tdb.db }, { conversationId, config: { version: 'current' } });
      await expect(direct).rejects.toBeInstanceOf(WhatifCannotRunError);
      const api = await apiReplay();
      expect(api.statusCode).toBe(503);
      expect(api.json().error).toEqual({
        code: 'WHATIF_CANNOT_RUN',
        message: expect.stringMatching(/^the replay could not run: .*\(SQLSTATE 25006\)$/),
      });
    } finally {
      await pool.query('drop trigger ce_test_standby on ce_audit; drop function ce_test_standby()');
    }
  });

  it('exits 3, naming the cause, for a login that may only read (SQLSTATE 42501)', async () => {
    const role = `ce_t_reader_${randomBytes(4).toString('hex')}`;
    const { pool } = demo.tdb;
    await pool.query(`create role ${role} login`);
    await pool.query(`grant usage on schema public to ${role}; grant select on all tables in schema public to ${role}`);
    try {
      const url = new URL(demo.tdb.url);
      url.username = role;
      const run = await replay(url.toString());
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^whatif failed: the replay could not run: .*permission denied .*\(SQLSTATE 42501\)/);
      expect(run.code).toBe(3);
    } finally {
      await pool.query(`drop owned by ${role}; drop role ${role}`);
    }
  });
});
