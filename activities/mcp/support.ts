import type { AuditRecord } from '../../core/audit';
import type { RuleOrigin } from '../../core/rules';
import type { RulePhase } from '../../core/rules/phase';
import type { StepScope } from '../../core/step/scope';
import { applyRules } from '../pipeline/support';
import type { StepContext } from '../step-runtime';

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
