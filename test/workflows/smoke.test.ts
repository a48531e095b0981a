import { seedPacks } from '../../db/seed';
import { PIPELINE_STEPS_AFTER_MCP, PIPELINE_STEPS_BEFORE_MCP } from '../../core/turn/contracts';
import { STEP_TABLE, type StepName } from '../../core/turn/steps';
import { decodePayload } from '../../api/history/entries';
import { activityEntries, isHandedOver, stepRuns } from '../support/history';
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

  it('answers a greeting through the turn workflow, every step under its own name', async () => {
    const reply = await h.send({ message: 'hi' });
    expect(reply.kind).toBe('COMPLETED');
    if (reply.kind !== 'COMPLETED') return;
    expect(reply.result.payload).toEqual({ type: 'TEXT', value: 'Hi, how can I help you today?' });
    const events = await h.history(reply.ref.workflowId);
    // Regular activities and local-activity markers alike, under their step names (step table).
    const steps = stepRuns(events).map((e) => e.type);
    expect(steps.slice(0, 4)).toEqual([
      'LoadOrCreateConversation',
      'ResetConversation',
      'AuditUserInput',
      'PolicyEnforcement',
    ]);
    expect(steps.slice(-3)).toEqual(['Memory', 'PersistConversation', 'PipelineEnd']);
    // A greeting reaches neither the LLM nor consumer code: every local-first step stays local, and
    // the commit (a business write) is the turn's one regular activity, PipelineEnd riding in it.
    const runs = stepRuns(events);
    expect(activityEntries(events).filter(isHandedOver)).toEqual([]);
    const regular = ['PersistConversation', 'PipelineEnd'];
    expect(runs.filter((r) => !r.local).map((r) => r.type)).toEqual(regular);
    for (const run of runs.filter((r) => r.local)) {
      const spec = STEP_TABLE[run.type as StepName];
      expect([run.type, spec.kind === 'local' || spec.localFirst === true]).toEqual([run.type, true]);
    }
    const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes);
    expect(scheduled.map((e) => decodePayload(e.userMetadata?.summary))).toEqual([
      'PersistConversation; then PipelineEnd',
    ]);
    // Each stretch of consecutive local steps is one local activity (core/turn/step-runs.ts): MCP skips
    // its planner loop for a greeting, so one run goes from the first step through McpPrepare to Memory.
    const localActivities = events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity');
    expect(localActivities.map((e) => decodePayload(e.userMetadata?.summary))).toEqual([
      `LocalSteps: ${[...PIPELINE_STEPS_BEFORE_MCP, 'McpPrepare', ...PIPELINE_STEPS_AFTER_MCP].join(', ')}`,
    ]);
    expect(runs).toHaveLength(23);
  });
});
