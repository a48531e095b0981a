import { whatifConversation } from '../../activities/whatif/replay';
import type { TurnDiff } from '../../core/whatif/diff';
import { listAudits } from '../../db/repositories/audit';
import type * as AuditRepository from '../../db/repositories/audit';
import { buildApi } from '../../api/app';
import { conversationQueries } from '../../api/db-queries';
import type { ApiPorts } from '../../api/ports';
import { recordedSeedConversations, type Row } from './whatif-recorded';

// Every audit read passes through, counted: the replay must read each scratch row once (see its test).
jest.mock('../../db/repositories/audit', () => {
  const actual = jest.requireActual<typeof AuditRepository>('../../db/repositories/audit');
  return { ...actual, listAudits: jest.fn(actual.listAudits) };
});

// Records every seed demo conversation once (in process, recorded model), then replays them.
jest.setTimeout(300_000);

/**
 * Issue #15 item 2, continued from whatif.test.ts: the replay behind `convengine whatif` and GET /api/v1/whatif (its
 * limits, the audit rows it reads, a failing turn, a lost connection), and that it changes nothing recorded.
 */
describe('convengine whatif (what-if replay)', () => {
  const seeds = recordedSeedConversations();
  const { idOf, inProcess, draftTree } = seeds;

  it('GET /api/v1/whatif returns the per-turn diff behind the API token, with specific 4xx for bad input', async () => {
    const db = seeds.demo.tdb.db;
    const unused = () => Promise.reject(new Error('not used by this test'));
    const ports: ApiPorts = {
      turns: { keyedConversation: unused, sendMessage: unused, decideApproval: unused, retryTurn: unused },
      conversations: conversationQueries(db),
      config: { refresh: unused },
      readiness: { check: async () => ({ checks: {} }) },
      whatif: {
        conversation: (id, version, { maxTurns }) =>
          whatifConversation({ db }, { conversationId: id, config: { version }, maxTurns }),
      },
    };
    const app = buildApi({
      ports,
      apiToken: 'whatif-token',
      messageMaxBytes: 8192,
      logLevel: 'silent',
      whatifLimits: { concurrency: 2, maxTurns: 3 },
    });
    const get = (query: string, token = 'whatif-token') =>
      app.inject({ method: 'GET', url: `/api/v1/whatif?${query}`, headers: { authorization: `Bearer ${token}` } });
    try {
      const loan = idOf('loan-confirmation');
      const ok = await get(`conversation=${loan}&config=current`);
      expect(ok.statusCode).toBe(200);
      const body = ok.json();
      expect(body).toMatchObject({ conversationId: loan, differs: false, summary: { same: 3, changed: 0 } });
      expect(body.config.version).toMatch(/^[0-9a-f]{16}$/);
      expect(body.turns[2]).toMatchObject({ turnNumber: 3, status: 'same', recorded: { state: 'COMPLETED' } });
      expect(body.turns[2].replayed).toEqual(body.turns[2].recorded);
      expect((await get(`conversation=${loan}&config=current`, 'wrong')).statusCode).toBe(401);
      const missing = await get('conversation=7b0c6a43-0d55-4c1b-9a0e-3f5f5d0b9c11&config=current');
      expect([missing.statusCode, missing.json().error.code]).toEqual([404, 'CONVERSATION_NOT_FOUND']);
      const version = await get(`conversation=${loan}&config=0123456789abcdef`);
      expect([version.statusCode, version.json().error.code]).toEqual([404, 'CONFIG_VERSION_NOT_FOUND']);
      expect((await get(`conversation=${loan}&config=../../etc`)).statusCode).toBe(400);
      expect((await get('conversation=nope&config=current')).statusCode).toBe(400);
      const doc = (
        await app.inject({
          method: 'GET',
          url: '/docs/openapi.json',
          headers: { authorization: 'Bearer whatif-token' },
        })
      ).json();
      expect(doc.paths['/api/v1/whatif'].get.parameters.map((p: Row) => p['name'])).toEqual(['conversation', 'config']);
    } finally {
      await app.close();
    }
  });

  it('refuses, before reading anything, a conversation with more recorded turns than the caller allows', async () => {
    const loan = idOf('loan-confirmation');
    const request = { conversationId: loan, config: { version: 'current' } };
    expect((await whatifConversation({ db: seeds.demo.tdb.db }, { ...request, maxTurns: 3 })).turns).toHaveLength(3);
    await expect(whatifConversation({ db: seeds.demo.tdb.db }, { ...request, maxTurns: 2 })).rejects.toMatchObject({
      code: 'CONVERSATION_TOO_LONG',
      message: `conversation ${loan} has 3 recorded turns; a replay here takes at most 2 (convengine whatif replays any length)`,
    });
  });

  it("reads each replayed audit row once: a long conversation costs each turn its own rows, not every earlier turn's", async () => {
    const loan = idOf('loan-confirmation');
    const counted = jest.mocked(listAudits);
    counted.mockClear();
    const result = await whatifConversation(
      { db: seeds.demo.tdb.db },
      { conversationId: loan, config: { version: 'current' } }
    );
    expect(result.turns.map((t) => t.status)).toEqual(['same', 'same', 'same']);
    const reads = await Promise.all(
      counted.mock.calls.map(async ([, conversationId], i) => ({
        conversationId,
        auditIds: ((await counted.mock.results[i]?.value) as Awaited<ReturnType<typeof listAudits>>).map(
          (row) => row.auditId
        ),
      }))
    );
    const scratchReads = reads.filter((r) => r.conversationId !== loan);
    expect(scratchReads).toHaveLength(3);
    const read = scratchReads.flatMap((r) => r.auditIds);
    expect(read.length).toBeGreaterThan(3);
    expect(new Set(read).size).toBe(read.length);
  });

  it('a turn that fails under the draft leaves nothing behind: the next turn reads its own rows, its input included', async () => {
    const dir = await draftTree('failing-turn', (file, rows) =>
      file !== 'ce_rule.yaml' ? rows : rows.map((r) => (r['rule_id'] === 132 ? { ...r, action_value: 'NOWHERE' } : r))
    );
    const loan = idOf('loan-confirmation');
    const counted = jest.mocked(listAudits);
    counted.mockClear();
    const run = await inProcess('--config', dir, '--conversation', loan, '--json');
    const turns = JSON.parse(run.stdout).conversations[0].turns as TurnDiff[];
    expect(turns[1]?.replayed?.error).toEqual(expect.any(String));
    const scratchReads = await Promise.all(
      counted.mock.calls
        .map(([, conversationId], i) => ({ conversationId, rows: counted.mock.results[i]?.value }))
        .filter((r) => r.conversationId !== loan)
        .map(async (r) => (await r.rows) as Awaited<ReturnType<typeof listAudits>>)
    );
    expect(scratchReads.map((rows) => rows.filter((row) => row.stage === 'USER_INPUT').length)).toEqual([1, 1, 1]);
  });

  it('a replay whose connection is terminated mid-way runs again on a fresh one and reports the same', async () => {
    const request = { conversationId: idOf('loan-confirmation'), config: { version: 'current' } };
    const undisturbed = await whatifConversation({ db: seeds.demo.tdb.db }, request);
    // The scratch session is the only one here with a transaction that has written (backend_xid): end it from outside.
    const terminateScratch = async () =>
      (
        await seeds.demo.tdb.pool.query(`
          with scratch as materialized (
            select pid from pg_stat_activity
             where datname = current_database() and pid <> pg_backend_pid() and backend_xid is not null)
          select pid from scratch where pg_terminate_backend(pid)`)
      ).rowCount ?? 0;
    let terminated = 0;
    for (let round = 0; round < 5 && terminated === 0; round++) {
      let replaying = true;
      const replay = whatifConversation({ db: seeds.demo.tdb.db }, request).finally(() => (replaying = false));
      while (replaying && terminated === 0) {
        terminated += await terminateScratch();
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      expect(await replay).toEqual(undisturbed);
    }
    expect(terminated).toBe(1);
  });

  it('nothing of the recorded conversations (or anything else) changed', async () => {
    expect(await seeds.fingerprint()).toEqual(seeds.before);
  });
});
