import { startTurnWorkflow } from '../../api/turns/start';
import { seedPacks } from '../../db/seed';
import type { TurnInput, TurnResult } from '../../core/turn/contracts';
import { turnInput } from '../support/config-rows';
import { WorkflowHarness } from '../support/workflow-harness';

jest.setTimeout(60_000);

/**
 * Eager workflow start (`convengine start`: the API's client on its worker's NativeConnection). The
 * server (the real one, and our dev server) hands the turn's first workflow task back with the
 * start, and sdk-core gives it to the worker; the turn then runs as any other.
 */
describe('eager workflow start (api/turns/start.ts)', () => {
  let harness: WorkflowHarness;
  beforeAll(async () => {
    harness = await WorkflowHarness.start();
    await seedPacks(harness.mcp.deps.db, ['faq']);
    await harness.mcp.base.store.refresh();
  });
  afterAll(async () => harness?.stop());

  const input = (conversationId: string): TurnInput =>
    turnInput('hi', { conversationId, receivedAt: new Date().toISOString() });

  it("starts a turn eagerly on the worker's connection and runs it to the end", async () => {
    const started = await startTurnWorkflow(harness.workerClient, harness.taskQueue, input(crypto.randomUUID()), {
      eager: true,
    });
    if (started.kind !== 'STARTED') throw new Error(`not started: ${started.kind}`);
    expect(started.eager).toBe(true);
    const result = (await started.handle.result()) as TurnResult;
    expect(result.payload).toEqual({ type: 'TEXT', value: 'Hi, how can I help you today?' });
    const events = await harness.history(started.handle.workflowId);
    expect(events.some((e) => e.activityTaskScheduledEventAttributes)).toBe(true);
  });

  it('is not asked for unless the gateway is told to', async () => {
    const started = await startTurnWorkflow(harness.workerClient, harness.taskQueue, input(crypto.randomUUID()));
    if (started.kind !== 'STARTED') throw new Error(`not started: ${started.kind}`);
    expect(started.eager).toBe(false);
    await started.handle.result();
  });
});
