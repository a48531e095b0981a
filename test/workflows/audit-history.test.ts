import { Context } from '@temporalio/activity';
import { listAudits } from '../../db/repositories/audit';
import { activityEntries } from '../support/history';
import { auditsInHistory, stepFrames, stepsInHistory, storedNonFrameAudits } from '../support/audit-history';
import { callTool, maxLoops, orderConfig } from '../support/order-config';
import { WorkflowHarness } from '../support/workflow-harness';

describe('ce_audit matches event history (issue #6 item 6)', () => {
  let h: WorkflowHarness;
  let crashAfterWrite = new Set<string>();
  beforeAll(async () => {
    h = await WorkflowHarness.start({
      activities: (base) => {
        const wrapped = { ...base };
        for (const name of ['IntentResolution', 'McpToolCall', 'PersistConversation'] as const) {
          const real = base[name] as (input: never) => Promise<unknown>;
          (wrapped as Record<string, unknown>)[name] = async (input: never) => {
            const out = await real(input);
            // A crash between writing the audits and reporting the result: Temporal retries the
            // activity, which must write nothing twice.
            if (crashAfterWrite.has(name) && Context.current().info.attempt === 1)
              throw new Error(`${name} lost its result`);
            return out;
          };
        }
        return wrapped;
      },
    });
    await h.mcp.configure(orderConfig({ configs: [maxLoops(2)] }));
  });
  afterAll(async () => h?.stop());

  async function runTurn(retried: string[]) {
    crashAfterWrite = new Set(retried);
    h.mcp.llm.setScript([
      callTool('mock.order.status', { orderId: 'ORD-7017' }),
      callTool('loan.application.submit', { customerId: 'C-1' }),
    ]);
    const reply = await h.send({ message: 'Check order ORD-7017 status.' });
    if (reply.kind !== 'COMPLETED') throw new Error(reply.kind);
    const entries = activityEntries(await h.history(reply.ref.workflowId));
    const rows = await listAudits(h.mcp.deps.db, reply.ref.conversationId);
    return { reply, entries, rows };
  }

  it('has exactly the audits of history (plus step frames), each once', async () => {
    const { entries, rows } = await runTurn([]);
    const stored = storedNonFrameAudits(rows);
    expect(stored).toEqual(auditsInHistory(entries));
    expect(rows.filter((r) => r.stage === 'TURN_DECISION')).toHaveLength(
      entries.filter((e) => e.type === 'RecordTurnDecision').length
    );
  });

  it('writes no duplicates when activities are retried after their audits were written', async () => {
    const { entries, rows } = await runTurn(['IntentResolution', 'McpToolCall', 'PersistConversation']);
    for (const name of ['IntentResolution', 'McpToolCall', 'PersistConversation']) {
      expect(entries.find((e) => e.type === name)?.attempt).toBe(2);
    }
    const stored = storedNonFrameAudits(rows);
    expect(stored).toEqual(auditsInHistory(entries));
    // One STEP_ENTER per step activity that history shows, despite the retried attempts.
    expect(stepFrames(rows)).toEqual(stepsInHistory(entries));
  });
});
