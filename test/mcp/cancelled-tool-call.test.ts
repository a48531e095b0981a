import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities } from '../../activities';
import { runTurnInProcess } from '../../activities/runner/in-process';
import type { TurnActivities } from '../../core/turn/activities';
import { McpHarness } from '../support/mcp-harness';
import { answer, ORDER_STATUS, ORDER_TRACE, orderConfig } from '../support/order-config';

const MESSAGE = 'Check order ORD-7017 status.';
const TOOL_REQUEST = { tool_request: { tool_code: 'mock.order.status', args: { orderId: 'ORD-7017' } } };

/**
 * A tool call whose activity Temporal cancels (the worker stopping, the turn cancelled) while the tool runs: the tool
 * fails as its cut I/O does (here a handler's own error), and the activity ends cancelled, which a stopping worker
 * reports as WorkerShutdown, retried on another worker. Before, DirectToolCall's last attempt recorded the cut call as
 * the tool's failed result (TOOL_EXECUTION_FAILED) and completed, so the turn answered with a tool that never failed.
 */
describe('a tool call cancelled by Temporal (activities/mcp)', () => {
  let h: McpHarness;
  beforeAll(async () => {
    h = await McpHarness.start();
  });
  afterAll(async () => h.stop());

  it("ends DirectToolCall's last attempt cancelled, not with the tool's failure as its result", async () => {
    await h.configure({ ...orderConfig(), mcpTools: [{ ...ORDER_STATUS, maxAttempts: 1 }, ORDER_TRACE] });
    h.llm.setScript([answer('Done.')]);
    h.setHandlers({
      'mock.order.status': async () => {
        const signal = Context.current().cancellationSignal;
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        throw new Error('socket hang up');
      },
    });
    const base = createActivities(h.deps);
    const attempts: Promise<unknown>[] = [];
    const activities: TurnActivities = {
      ...base,
      DirectToolCall: (input): ReturnType<TurnActivities['DirectToolCall']> => {
        // In process nothing reads a cancellation: the runner would record it as the tool's failure. Not here.
        if (attempts.length > 0) return Promise.reject(new Error('the turn ends at the cancelled call'));
        const env = new MockActivityEnvironment();
        setTimeout(() => env.cancel('WORKER_SHUTDOWN'), 100);
        const run: ReturnType<TurnActivities['DirectToolCall']> = env.run(base.DirectToolCall, input);
        attempts.push(run.catch((e: unknown) => e));
        return run;
      },
    };
    const conversationId = crypto.randomUUID();
    const turn = { conversationId, message: MESSAGE, inputParams: TOOL_REQUEST };
    await runTurnInProcess(h.deps, turn, { activities }).catch(() => undefined);
    const ended = await attempts[0];
    expect(ended).toBeInstanceOf(CancelledFailure);
    expect(ended).toMatchObject({ message: 'WORKER_SHUTDOWN' });
    // Its rows were never written: Temporal had given up on the attempt.
    const stages = await h.stages(conversationId);
    expect(stages.filter((s) => s === 'TOOL_ORCHESTRATION_ERROR' || s === 'STEP_ERROR')).toEqual([]);
  });
});
