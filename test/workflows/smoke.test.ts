import { seedPacks } from '../../db/seed';
import { WorkflowHarness } from '../support/workflow-harness';

describe('conversation turn workflow (smoke)', () => {
  let h: WorkflowHarness;
  beforeAll(async () => {
    h = await WorkflowHarness.start();
    await seedPacks(h.mcp.deps.db, ['faq']);
    await h.mcp.base.store.refresh();
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('answers a greeting through the turn workflow, one activity per step', async () => {
    const reply = await h.send({ message: 'hi' });
    expect(reply.kind).toBe('COMPLETED');
    if (reply.kind !== 'COMPLETED') return;
    expect(reply.result.payload).toEqual({ type: 'TEXT', value: 'Hi, how can I help you today?' });
    const events = await h.history(reply.ref.workflowId);
    const scheduled = events
      .filter((e) => e.activityTaskScheduledEventAttributes)
      .map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name);
    expect(scheduled.slice(0, 4)).toEqual([
      'LoadOrCreateConversation',
      'ResetConversation',
      'AuditUserInput',
      'PolicyEnforcement',
    ]);
    expect(scheduled.slice(-3)).toEqual(['Memory', 'PersistConversation', 'PipelineEnd']);
  });
});
