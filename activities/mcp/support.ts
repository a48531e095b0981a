import type { AuditRecord } from '../../core/audit';
import type { RuleOrigin } from '../../core/rules';
import type { RulePhase } from '../../core/rules/phase';
import type { StepScope } from '../../core/step/scope';
import type { ToolCallRequest } from '../../core/turn/contracts';
import { applyRules } from '../pipeline/support';
import type { StepContext } from '../step-runtime';
import type { ToolHandlerContext } from '../tools/deps';

/** Emits audits built by pure MCP code through the scope, so each carries the intent/state of its moment. */
export function emit(scope: StepScope, records: readonly AuditRecord[]): void {
  for (const record of records) scope.audit(record.stage, record.payload);
}

/** A rule phase run from the MCP step (audit source e.g. `McpToolStep PreMcp`). */
export function mcpRules(
  ctx: StepContext,
  phase: RulePhase,
  source: string,
  origin: RuleOrigin = 'MCP_TOOL_STEP'
): Promise<void> {
  return applyRules(ctx, phase, source, origin);
}

/** What a tool handler sees of the step: the call, the session, the pinned config, the deps. */
export function toolHandlerContext(
  ctx: StepContext,
  toolCode: string,
  toolGroup: string,
  call: ToolCallRequest
): ToolHandlerContext {
  return {
    toolCode,
    toolGroup,
    args: call.args,
    call,
    session: ctx.scope.session,
    snapshot: ctx.snapshot,
    deps: ctx.deps,
    tools: ctx.deps.tools,
    audit: (stage, payload) => ctx.scope.audit(stage, payload),
  };
}
