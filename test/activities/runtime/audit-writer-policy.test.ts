/** The audit writer under an audit policy, and what it tells the audit gate of driver decisions. */
import { asyncLocalStorage, type Context } from '@temporalio/activity';
import { systemClock } from '../../../activities/deps';
import type { AuditWrite } from '../../../activities/runtime/audit-rows';
import { withHeldAudits, writeAudits } from '../../../activities/runtime/audit-writer';
import { configuredAuditGate } from '../../../activities/runtime/audit-gate';
import { audit } from '../../../core/audit';
import { FULL_AUDIT_POLICY as FULL, type AuditPolicy } from '../../../core/audit/policy';
import type { Json } from '../../../core/json';
import { listAudits } from '../../../db/repositories/audit';
import { useAuditWriterFixture } from '../../support/audit-writer-fixture';

describe('audit writer: policy and gate (activities/runtime/audit-writer.ts)', () => {
  const fx = useAuditWriterFixture();
  const { conversationId, turn, session, write, rowsUnder } = fx;

  describe('under an audit policy (ce_config AuditService.*)', () => {
    const policy = (changes: Partial<AuditPolicy>): AuditPolicy => ({ ...FULL, ...changes });
    const stages = ['STEP_ENTER', 'MCP_PLAN_LLM_OUTPUT', 'MCP_TOOL_ERROR', 'RULE_APPLIED', 'STEP_EXIT'];

    it('STANDARD leaves out the step frames; the kept rows keep the keys they would have had', async () => {
      await writeAudits(fx.deps, policy({ level: 'STANDARD' }), write('10-McpTool', stages));
      expect(await rowsUnder('10-McpTool')).toEqual([
        ['10-McpTool/1', 'MCP_PLAN_LLM_OUTPUT'],
        ['10-McpTool/2', 'MCP_TOOL_ERROR'],
        ['10-McpTool/3', 'RULE_APPLIED'],
      ]);
    });

    it('ERROR_ONLY keeps stages naming an error, a failure or a rejection', async () => {
      const more = [...stages, 'SCHEMA_VALIDATION_FAILED', 'TOOL_APPROVAL_REJECTED'];
      await writeAudits(fx.deps, policy({ level: 'ERROR_ONLY' }), write('11-McpTool', more));
      expect((await rowsUnder('11-McpTool')).map(([, stage]) => stage)).toEqual([
        'MCP_TOOL_ERROR',
        'SCHEMA_VALIDATION_FAILED',
        'TOOL_APPROVAL_REJECTED',
      ]);
    });

    it('includes and excludes stages by wildcard pattern, exclusion last', async () => {
      const mcpButErrors = policy({ includeStages: ['MCP_*', 'STEP_E*R'], excludeStages: ['*_ERROR'] });
      await writeAudits(fx.deps, mcpButErrors, write('12-McpTool', stages));
      expect((await rowsUnder('12-McpTool')).map(([, stage]) => stage)).toEqual(['STEP_ENTER', 'MCP_PLAN_LLM_OUTPUT']);
    });

    it('filters by the intent a row was emitted under, else the session intent', async () => {
      const records = [{ ...audit('RULE_APPLIED'), meta: { intent: 'loan_apply', state: 'S' } }, audit('STEP_EXIT')];
      const onlyLoans = policy({ includeIntents: ['LOAN_*'] });
      await writeAudits(fx.deps, onlyLoans, {
        ...write('13-Rules', []),
        session: { ...session, intent: 'FAQ' },
        records,
      });
      expect(await rowsUnder('13-Rules')).toEqual([['13-Rules/0', 'RULE_APPLIED']]);
      await writeAudits(fx.deps, policy({ excludeIntents: ['FAQ'] }), {
        ...write('14-Rules', []),
        session: { ...session, intent: 'faq' },
        records,
      });
      expect(await rowsUnder('14-Rules')).toEqual([['14-Rules/0', 'RULE_APPLIED']]);
    });

    it('disabled or NONE: no row and no statement', async () => {
      await writeAudits(fx.deps, policy({ enabled: false }), write('15-Rules', stages));
      await writeAudits(fx.deps, policy({ level: 'NONE' }), write('15-Rules', stages));
      expect(await rowsUnder('15-Rules')).toEqual([]);
      expect(fx.statements).toBe(0);
    });

    it('without persistMeta, stores each payload as the step emitted it', async () => {
      await writeAudits(fx.deps, policy({ persistMeta: false }), write('16-Rules', ['RULE_APPLIED']));
      const stored = (await listAudits(fx.tdb.db, conversationId)).filter((r) =>
        r.idempotencyKey.includes('/16-Rules/')
      );
      expect(stored.map((r) => r.payload)).toEqual([{ at: '16-Rules' }]);
    });

    it('drops rows past the rate limit in a window, per conversation and stage, and counts again after it', async () => {
      let now = Date.parse('2026-03-01T10:00:00.000Z');
      const clock = { now: () => new Date(now) };
      const limited = { ...fx.deps, clock, audit: configuredAuditGate(clock) };
      const rateLimit = { ...FULL.rateLimit, enabled: true, maxEvents: 2, windowMs: 1000 };
      const three = ['RULE_APPLIED', 'RULE_APPLIED', 'RULE_APPLIED', 'STEP_EXIT'];
      await writeAudits(limited, policy({ rateLimit }), write('17-Rules', three));
      expect((await rowsUnder('17-Rules')).map(([key]) => key)).toEqual(['17-Rules/0', '17-Rules/1', '17-Rules/3']);
      now += 999;
      await writeAudits(limited, policy({ rateLimit }), write('18-Rules', ['RULE_APPLIED']));
      expect(await rowsUnder('18-Rules')).toEqual([]);
      now += 1;
      await writeAudits(limited, policy({ rateLimit }), write('19-Rules', ['RULE_APPLIED']));
      expect(await rowsUnder('19-Rules')).toEqual([['19-Rules/0', 'RULE_APPLIED']]);
      const allStages = { ...rateLimit, perStage: false };
      await writeAudits(limited, policy({ rateLimit: allStages }), write('20-Rules', ['A', 'B', 'C']));
      expect((await rowsUnder('20-Rules')).map(([, stage]) => stage)).toEqual(['A', 'B']);
    });
  });

  describe('tells the gate of each driver decision once (the worker counts loop limits and guardrail blocks)', () => {
    const heard: Json[] = [];
    const hearing = () => ({
      ...fx.deps,
      audit: configuredAuditGate(systemClock, { decisionRecorded: (d) => heard.push(d) }),
    });
    const decision = (kind: string) => audit('TURN_DECISION', { kind, toolCode: null, reason: 'MCP_TOOL_MAX_LOOPS' });
    const withDecision = (segment: string, kind = 'LOOP_LIMIT'): AuditWrite => ({
      ...write(segment, ['STEP_ENTER']),
      records: [audit('STEP_ENTER'), decision(kind), audit('STEP_EXIT')],
    });
    const inRun = <T>(runId: string, work: () => Promise<T>): Promise<T> =>
      asyncLocalStorage.run({ info: { workflowExecution: { workflowId: turn.turnId, runId } } } as Context, work);
    beforeEach(() => heard.splice(0));

    it('when its row is first stored: a retry that rewrites it, held or not, tells nothing more', async () => {
      const gated = hearing();
      await expect(
        withHeldAudits(gated, async () => {
          await writeAudits(gated, FULL, withDecision('21-Finalize'));
          throw new Error('the run failed after its step wrote');
        })
      ).rejects.toThrow('the run failed');
      expect(heard).toEqual([{ kind: 'LOOP_LIMIT', toolCode: null, reason: 'MCP_TOOL_MAX_LOOPS' }]);
      await withHeldAudits(gated, () => writeAudits(gated, FULL, withDecision('21-Finalize')));
      await writeAudits(gated, FULL, withDecision('21-Finalize'));
      expect(heard).toHaveLength(1);
      // Only decisions: the step's other rows were first stored too.
      expect(await rowsUnder('21-Finalize')).toHaveLength(3);
    });

    it('again in another run of the turn, which decides again', async () => {
      const gated = hearing();
      await inRun('run-d', () => writeAudits(gated, FULL, withDecision('22-Finalize', 'GUARDRAIL_BLOCKED')));
      await inRun('run-d', () => writeAudits(gated, FULL, withDecision('22-Finalize', 'GUARDRAIL_BLOCKED')));
      await inRun('run-e', () => writeAudits(gated, FULL, withDecision('22-Finalize', 'GUARDRAIL_BLOCKED')));
      expect(heard.map((d) => (d as { kind: string }).kind)).toEqual(['GUARDRAIL_BLOCKED', 'GUARDRAIL_BLOCKED']);
    });

    it('left out by the policy, as its write is stored, once per write', async () => {
      const gated = hearing();
      const noDecisions = { ...FULL, excludeStages: ['TURN_DECISION'] };
      await writeAudits(gated, noDecisions, withDecision('23-Finalize'));
      expect(heard).toHaveLength(1);
      expect(await rowsUnder('23-Finalize')).toEqual([
        ['23-Finalize/0', 'STEP_ENTER'],
        ['23-Finalize/2', 'STEP_EXIT'],
      ]);
      await writeAudits(gated, { ...FULL, enabled: false }, withDecision('24-Finalize'));
      expect(heard).toHaveLength(2);
    });
  });
});
