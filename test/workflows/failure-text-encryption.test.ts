import { randomBytes } from 'node:crypto';
import { createPipelineActivities } from '../../activities/pipeline';
import { memory } from '../../activities/pipeline/memory';
import { temporalInspector } from '../../api/console/temporal-inspector';
import { activityEntries } from '../../api/history/entries';
import { EngineError } from '../../core/errors';
import { answer, callTool, orderConfig } from '../support/order-config';
import { storedHistory } from '../support/stored-history';
import { WorkflowHarness } from '../support/workflow-harness';

/** What the model wrote as a tool's argument, which the tool's error echoes (as consumer tool code may). */
const TOOL_MARKER = 'ORD-MARKER-PLUM-8812';
/** In a step's error, as a driver's error can quote the user's text. */
const STEP_MARKER = 'MARKER-QUINCE-5521';

describe('failure text with PAYLOAD_ENCRYPTION_KEYS (docs/security.md §8)', () => {
  let h: WorkflowHarness;
  let memoryFails = false;
  beforeAll(async () => {
    h = await WorkflowHarness.start({
      payloadEncryptionKeys: [{ id: 'k1', key: randomBytes(32) }],
      activities: (base, deps) => ({
        ...base,
        ...createPipelineActivities(deps, {
          Memory: async (...args) => {
            // A programming error: the turn fails on its first attempt, with no retries to wait for.
            if (memoryFails) throw new TypeError(`memory store refused the summary of ${STEP_MARKER}`);
            return memory(...args);
          },
        }),
      }),
    });
  });
  afterAll(async () => {
    await h.stop();
  });

  it("keeps a tool error's echo of the model's argument out of history; the outline says what failed", async () => {
    await h.mcp.configure(orderConfig());
    h.mcp.setHandlers({
      'mock.order.status': async (ctx) => {
        throw new EngineError('TOOL_ARGS_INVALID', `no order ${String(ctx.args['orderId'])} in the order book`);
      },
    });
    h.mcp.llm.setScript([callTool('mock.order.status', { orderId: TOOL_MARKER }), answer('Done.')]);
    const reply = await h.send({ message: 'Check order ORD-7017 status.' });
    h.mcp.setHandlers({});
    if (reply.kind !== 'COMPLETED') throw new Error(`expected a completed turn, got ${reply.kind}`);
    expect(reply.result.outcome).toBe('TOOL_ERROR');
    const { workflowId } = reply.ref;

    // (Booleans: a failed expectation would print the whole binary history.)
    const stored = await storedHistory(h, workflowId);
    expect({ marker: stored.includes(TOOL_MARKER), text: stored.includes('in the order book') }).toEqual({
      marker: false,
      text: false,
    });
    expect(stored.includes('TOOL_ARGS_INVALID in McpToolCall (message encrypted with PAYLOAD_ENCRYPTION_KEYS')).toBe(
      true
    );

    // With the key, the console reads the step's failure in full.
    const read = await temporalInspector(h.client, h.taskQueue).history(workflowId);
    const tool = activityEntries(read?.events ?? []).find((entry) => entry.type === 'McpToolCall');
    expect(tool?.failure).toEqual({
      type: 'TOOL_ARGS_INVALID',
      message: `no order ${TOOL_MARKER} in the order book`,
      nonRetryable: true,
    });
  });

  it("keeps a failed turn's step text out of history, its own failure and its cause included", async () => {
    await h.mcp.configure(orderConfig());
    h.mcp.llm.setScript([answer('Order shipped.')]);
    memoryFails = true;
    const reply = await h.send({ message: 'Check order ORD-7018 status.' }).finally(() => (memoryFails = false));
    expect(reply.kind).toBe('FAILED');
    const { workflowId } = reply.ref;

    const stored = await storedHistory(h, workflowId);
    expect({ marker: stored.includes(STEP_MARKER), text: stored.includes('memory store refused') }).toEqual({
      marker: false,
      text: false,
    });
    // The step's failure and the turn's own (a local step run's failure is its cause) say what failed.
    expect(stored.includes('failed: TypeError in Memory (LocalSteps) (message encrypted')).toBe(true);

    const read = await temporalInspector(h.client, h.taskQueue).history(workflowId);
    const step = activityEntries(read?.events ?? []).find((entry) => entry.type === 'Memory');
    expect(step?.failure?.message).toBe(`memory store refused the summary of ${STEP_MARKER}`);
    expect(JSON.stringify(read?.events)).toContain(`TypeError: memory store refused the summary of ${STEP_MARKER}`);
  });
});
