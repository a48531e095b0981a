import { BlockReason } from '../../../core/mcp/constants';
import { decideToolCall, directCallable, type ToolCallCheck } from '../../../core/mcp/tool-policy';
import { tool } from './fake-executor';

const guardOff = { enabled: false, failClosed: false, allowedNextByCurrentTool: {} };
const check = (extra: Partial<ToolCallCheck>): ToolCallCheck => ({
  origin: 'PLANNER',
  toolCode: 'lookup',
  tools: [tool('lookup'), tool('write', { sideEffect: 'NON_IDEMPOTENT_WRITE', requiresApproval: true })],
  observations: [],
  nextToolGuard: guardOff,
  ...extra,
});

describe('the one tool-call policy (D21)', () => {
  it('is the same scope and guardrail decision for a planner call and a direct request', () => {
    for (const origin of ['PLANNER', 'DIRECT'] as const) {
      expect(decideToolCall(check({ origin, toolCode: 'elsewhere' }))).toMatchObject({
        allowed: false,
        reason: BlockReason.ToolNotInScope,
      });
      const guard = { enabled: true, failClosed: true, allowedNextByCurrentTool: { __START__: ['write'] } };
      expect(decideToolCall(check({ origin, nextToolGuard: guard }))).toMatchObject({
        allowed: false,
        reason: BlockReason.NextTool,
      });
      expect(decideToolCall(check({ origin, toolCode: 'LOOKUP' }))).toMatchObject({
        allowed: true,
        needsApproval: false,
      });
    }
  });

  it('matches codes with case and surrounding spaces ignored on both sides, the same as the scope guard', () => {
    // A row written " lookup " (refused by validation, but rows come from the database too) used to pass the guard
    // and then be missed by the policy's own lookup: a TypeError inside the workflow, every task retried.
    const tools = [tool(' Lookup ')];
    expect(decideToolCall(check({ tools, toolCode: 'lookup' }))).toMatchObject({ allowed: true, tool: tools[0] });
    expect(decideToolCall(check({ toolCode: '  LOOKUP\t' }))).toMatchObject({
      allowed: true,
      tool: { toolCode: 'lookup' },
    });
  });

  it('asks the planner path for approval, and refuses a direct request for a tool that needs one', () => {
    expect(decideToolCall(check({ toolCode: 'write' }))).toMatchObject({ allowed: true, needsApproval: true });
    const direct = check({
      origin: 'DIRECT',
      toolCode: 'write',
      tools: [tool('write', { requiresApproval: true, directCallable: true })],
    });
    expect(decideToolCall(direct)).toMatchObject({ allowed: false, reason: BlockReason.DirectRequestNeedsApproval });
  });

  it('refuses a direct request for a tool that may not be called directly', () => {
    const tools = [tool('lookup', { directCallable: false })];
    expect(decideToolCall(check({ origin: 'DIRECT', tools }))).toMatchObject({
      allowed: false,
      reason: BlockReason.DirectRequestNotAllowed,
    });
    expect(decideToolCall(check({ origin: 'PLANNER', tools })).allowed).toBe(true);
  });

  it('defaults: read-only HTTP tools may be called directly; DB tools and writes may not; a row decides', () => {
    const row = (toolGroup: string, sideEffect: string, allowDirectRequest?: boolean | null) => ({
      toolGroup,
      sideEffect,
      allowDirectRequest,
    });
    expect(directCallable(row('HTTP_API', 'READ_ONLY'))).toBe(true);
    expect(directCallable(row('http', 'read_only', null))).toBe(true);
    expect(directCallable(row('DB', 'READ_ONLY'))).toBe(false);
    expect(directCallable(row('HTTP_API', 'IDEMPOTENT_WRITE'))).toBe(false);
    expect(directCallable(row('DB', 'READ_ONLY', true))).toBe(true);
    expect(directCallable(row('HTTP_API', 'READ_ONLY', false))).toBe(false);
  });
});
