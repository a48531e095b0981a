import { Context } from '@temporalio/activity';
import { listAudits } from '../../db/repositories/audit';
import { committedTurnCount } from '../../db/repositories/conversation';
import { stepRuns, decisionLog } from '../support/history';
import { stepFrames, stepsInHistory, storedNonFrameAudits } from '../support/audit-history';
import { callTool, maxLoops, orderConfig } from '../support/order-config';
import { WorkflowHarness } from '../support/workflow-harness';

describe('ce_audit matches event history (issue #6 item 6)', () => {
  let h: WorkflowHarness;
  let crashAfterWrite = new Set<string>();
  beforeAll(async () => {
    h = await WorkflowHarness.start({
      activities: (base) => {
        const wrapped = { ...base };
        for (const name of ['IntentResolution', 'McpToolCall', 'PersistConversation', 'PipelineEnd'] as const) {
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
    const entries = stepRuns(await h.history(reply.ref.workflowId));
    const rows = await listAudits(h.mcp.deps.db, reply.ref.conversationId);
    return { reply, entries, rows };
  }

  // The turn workflow: each step writes its own rows, once (one route); nothing comes back in history.
  it('writes every audit in the step that made it: none travel in history, one frame pair per step', async () => {
    const { reply, entries, rows } = await runTurn([]);
    for (const entry of entries) {
      expect(entry.result).not.toHaveProperty('audits');
      expect(entry.result).not.toHaveProperty('session');
      expect(entry.result).toHaveProperty('patch');
    }
    expect(stepFrames(rows)).toEqual(stepsInHistory(entries));
    expect(rows.filter((r) => r.stage === 'STEP_EXIT')).toHaveLength(entries.length);
    expect(rows.filter((r) => r.stage === 'TURN_DECISION').map((r) => r.payload['kind'])).toEqual(
      decisionLog(await h.history(reply.ref.workflowId)).map((d) => d.split(':')[0])
    );
    expect(new Set(rows.map((r) => r.idempotencyKey)).size).toBe(rows.length);
  });

  it('writes no duplicates when activities are retried after their audits were written', async () => {
    const clean = await runTurn([]);
    const { entries, rows } = await runTurn(['IntentResolution', 'McpToolCall', 'PersistConversation']);
    for (const name of ['IntentResolution', 'McpToolCall', 'PersistConversation']) {
      expect(entries.find((e) => e.type === name)?.attempt).toBe(2);
    }
    expect(storedNonFrameAudits(rows).map((a) => a.stage)).toEqual(
      storedNonFrameAudits(clean.rows).map((a) => a.stage)
    );
    // One STEP_ENTER per step activity that history shows, despite the retried attempts.
    expect(stepFrames(rows)).toEqual(stepsInHistory(entries));
  });

  it('commits once when the step after the commit, in the same run, fails after the commit', async () => {
    const clean = await runTurn([]);
    const { reply, entries, rows } = await runTurn(['PipelineEnd']);
    // PersistConversation and PipelineEnd share one RegularSteps activity: its second attempt finds the
    // turn committed (ALREADY_COMMITTED) and answers the same.
    expect(entries.filter((e) => e.type === 'PersistConversation' || e.type === 'PipelineEnd')).toEqual([
      expect.objectContaining({ type: 'PersistConversation', attempt: 2, inRun: true, leadsRun: true }),
      expect.objectContaining({ type: 'PipelineEnd', attempt: 2, inRun: true }),
    ]);
    expect(reply.result).toMatchObject({ payload: clean.reply.result.payload, turnNumber: 1 });
    expect(await committedTurnCount(h.mcp.deps.db, reply.ref.conversationId)).toBe(1);
    const commits = rows.filter((a) => a.stage === 'STEP_EXIT' && a.payload['step'] === 'PersistConversation');
    expect(commits).toHaveLength(1);
    expect(storedNonFrameAudits(rows).map((a) => a.stage)).toEqual(
      storedNonFrameAudits(clean.rows).map((a) => a.stage)
    );
    // One STEP_ENTER per step activity that history shows, despite the retried attempts.
    expect(stepFrames(rows)).toEqual(stepsInHistory(entries));
  });
});
