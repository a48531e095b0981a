import { seedPacks } from '../../db/seed';
import { STEP_TABLE, type StepName } from '../../core/turn/steps';
import { activityEntries } from '../support/history';
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
    // Regular activities and local-activity markers alike, under their step names (step table).
    const steps = activityEntries(events).map((e) => e.type);
    expect(steps.slice(0, 4)).toEqual([
      'LoadOrCreateConversation',
      'ResetConversation',
      'AuditUserInput',
      'PolicyEnforcement',
    ]);
    expect(steps.slice(-3)).toEqual(['Memory', 'PersistConversation', 'PipelineEnd']);
    const regular = events.filter((e) => e.activityTaskScheduledEventAttributes).length;
    const local = events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').length;
    expect(regular).toBe(steps.filter((s) => STEP_TABLE[s as StepName].kind !== 'local').length);
    expect(local).toBe(steps.filter((s) => STEP_TABLE[s as StepName].kind === 'local').length);
  });
});
