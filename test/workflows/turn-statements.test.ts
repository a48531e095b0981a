import { countStatements } from '../../bench/db-statements';
import { seedPacks } from '../../db/seed';
import { WorkflowHarness } from '../support/workflow-harness';

let h: WorkflowHarness;
beforeAll(async () => {
  h = await WorkflowHarness.start();
  await seedPacks(h.mcp.deps.db, ['faq']);
  await h.mcp.base.store.refresh();
});
afterAll(async () => h?.stop());

/**
 * A durable turn that completes sends what it sent before its audit batches were fenced by its run's last row
 * (db/repositories/audit.ts): the fence is a probe inside each batch's one statement, never a statement of its own.
 * Counted as bench/db-statements.ts counts them: the gateway's and the worker's statements (one process here).
 */
it('a completed turn sends the same statements as before the fence: two audit batches, no read of ce_audit', async () => {
  await h.send({ message: 'hi' });
  const counts = await countStatements(async () => expect((await h.send({ message: 'hi' })).kind).toBe('COMPLETED'));
  expect(Object.fromEntries(counts)).toEqual({
    ce_conversation_turn_count_v1: 1,
    // A first turn (each send here opens a conversation) asks whether its id was retired: pruned or erased.
    'SELECT 1': 1,
    'select "revision"': 1,
    ce_conversation_load_v1: 1,
    ce_audit_write_batch_v6: 2,
    ce_conversation_commit_v1: 1,
  });
});
