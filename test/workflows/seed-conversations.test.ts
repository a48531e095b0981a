import { PIPELINE_STEPS_AFTER_MCP, PIPELINE_STEPS_BEFORE_MCP, COMMIT_STEPS } from '../../core/turn/contracts';
import type { DemoTurnRecord } from '../../demo/demo-runner';
import { listAudits } from '../../db/repositories/audit';
import { activityEntries, isHandedOver, stepRuns } from '../support/history';
import { runSeedConversations } from '../support/seed-turns';
import { WorkflowHarness } from '../support/workflow-harness';

const MCP_UNITS = new Set(['McpPrepare', 'McpPlan', 'McpToolCall', 'McpFinalize', 'RecordTurnDecision']);
const PIPELINE = [...PIPELINE_STEPS_BEFORE_MCP, ...PIPELINE_STEPS_AFTER_MCP, ...COMMIT_STEPS];

describe('seed conversations as turn workflows (issue #6 item 1)', () => {
  let h: WorkflowHarness;
  let records: DemoTurnRecord[];
  beforeAll(async () => {
    h = await WorkflowHarness.start();
    records = await runSeedConversations(h, ['loan-confirmation', 'move-connections']);
  });
  afterAll(async () => h?.stop());

  it('gives the seed replies: Example 3 three turns, MOVE_CONNECTIONS two turns', () => {
    const byName = [...records].sort((a, b) => a.conversation.localeCompare(b.conversation) || a.turn - b.turn);
    expect(byName.map((r) => [r.conversation, r.turn, r.ok, r.mismatch ?? null])).toEqual([
      ['loan-confirmation', 1, true, null],
      ['loan-confirmation', 2, true, null],
      ['loan-confirmation', 3, true, null],
      ['move-connections', 1, true, null],
      ['move-connections', 2, true, null],
    ]);
    expect(byName.map((r) => r.state)).toEqual(['CONFIRMATION', 'CONFIRMATION', 'COMPLETED', 'COMPLETED', 'COMPLETED']);
  });

  it('runs every pipeline step as one activity, in order, with the MCP units between them', async () => {
    for (const record of records) {
      const acts = stepRuns(await h.history(record.workflowId as string));
      expect(acts.every((a) => a.outcome === 'COMPLETED')).toBe(true);
      expect(acts.filter((a) => !MCP_UNITS.has(a.type)).map((a) => a.type)).toEqual(PIPELINE);
      const types = acts.map((a) => a.type);
      expect(types.indexOf('McpPrepare')).toBe(types.indexOf('ToolOrchestration') + 1);
      expect(
        types.lastIndexOf('McpFinalize') === -1 || types.lastIndexOf('McpFinalize') === types.indexOf('Rules') - 1
      ).toBe(true);
      for (const a of acts) expect(a.summary).toBeTruthy();
    }
  });

  it('hands a local-first step to a regular activity only when it reaches the LLM, and right after', async () => {
    let handedOver = 0;
    for (const record of records) {
      const all = activityEntries(await h.history(record.workflowId as string));
      all.forEach((entry, i) => {
        if (!isHandedOver(entry)) return;
        handedOver += 1;
        expect(all[i + 1]).toMatchObject({ type: entry.type, local: false, outcome: 'COMPLETED' });
        expect(entry.failure?.message).toMatch(/calls the LLM|runs consumer task/);
      });
      // Steps that never reach the LLM stay local, or ride in the regular activity of the step before
      // them (RegularSteps): no regular activity is scheduled for one of them.
      const regular = all.filter((e) => !e.local && (!e.inRun || e.leadsRun)).map((e) => e.type);
      expect(regular).not.toContain('McpPrepare');
      expect(regular).toContain('PersistConversation');
      const followers = all.filter((e) => !e.local && e.inRun && !e.leadsRun).map((e) => e.type);
      expect(followers).toContain('PipelineEnd');
    }
    expect(handedOver).toBeGreaterThan(0);
  });

  it('runs each CALL_TOOL as exactly one tool activity whose summary names the tool', async () => {
    const loanTurn3 = records.find((r) => r.conversation === 'loan-confirmation' && r.turn === 3) as DemoTurnRecord;
    const acts = activityEntries(await h.history(loanTurn3.workflowId as string));
    expect(acts.filter((a) => a.type === 'McpToolCall').map((a) => a.summary)).toEqual([
      'McpToolCall: loan.credit.rating.check (call 1, READ_ONLY)',
      'McpToolCall: loan.credit.fraud.check (call 2, READ_ONLY)',
      'McpToolCall: loan.debt.credit.summary (call 3, READ_ONLY)',
      'McpToolCall: loan.application.submit (call 4, IDEMPOTENT_WRITE)',
    ]);
    expect(acts.filter((a) => a.type === 'McpPlan')).toHaveLength(5);
    const audits = await listAudits(h.mcp.deps.db, loanTurn3.conversationId as string);
    expect(audits.filter((a) => a.turnNumber === 3 && a.stage === 'MCP_TOOL_CALL')).toHaveLength(4);
    expect(h.mcp.toolServer.counters.totalWriteEffects()).toBe(1);

    const move = records.filter((r) => r.conversation === 'move-connections');
    for (const r of move) {
      const tools = activityEntries(await h.history(r.workflowId as string)).filter((a) => a.type === 'McpToolCall');
      expect(tools.map((a) => a.summary)).toEqual(['McpToolCall: postgres.move_status (call 1, READ_ONLY)']);
    }
  });
});
