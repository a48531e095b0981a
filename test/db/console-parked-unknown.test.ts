import type { Client } from '@temporalio/client';
import { consolePorts } from '../../api/console/wiring';
import { ensureConversation } from '../../db/repositories/conversation';
import { createTestDatabase, type TestDatabase } from '../support/database';

/**
 * The console's conversation list (api/console/wiring.ts) when Temporal's visibility cannot be read: an unfiltered
 * page still answers from PostgreSQL, says that parked conversations are unknown, and shows the stored statuses; a
 * status filter, which needs the parked conversations to be right, fails with visibility's own error.
 */
describe('the console conversation list without Temporal visibility', () => {
  let tdb: TestDatabase;
  const CONVERSATION = '00000000-0000-4000-8000-00000000b001';
  const unreachable = new Error('14 UNAVAILABLE: connect ECONNREFUSED 127.0.0.1:7233');
  const client = {
    options: { namespace: 'default' },
    workflowService: { listWorkflowExecutions: () => Promise.reject(unreachable) },
  } as unknown as Client;
  const deployment = { taskQueue: 'convengine-turns', temporalUiUrl: undefined };

  beforeAll(async () => {
    tdb = await createTestDatabase();
    await ensureConversation(tdb.db, CONVERSATION);
  });
  afterAll(async () => tdb.drop());

  it('lists the stored statuses and marks the page parkedUnknown', async () => {
    const page = await consolePorts(tdb.db, client, deployment).searchConversations({ limit: 10 });
    expect(page.items.map((c) => [c.conversationId, c.status])).toEqual([[CONVERSATION, 'RUNNING']]);
    expect(page.parkedUnknown).toBe(true);
  });

  it('fails a status filter with the visibility error, which a filter cannot do without', async () => {
    const search = consolePorts(tdb.db, client, deployment).searchConversations({ limit: 10, status: 'RUNNING' });
    await expect(search).rejects.toBe(unreachable);
  });
});
