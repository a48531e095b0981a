import type { StepInput, StepOutput } from '../turn/contracts';
import type { TurnExecutor } from '../turn/executor';

/**
 * The MCP step, unrolled: McpPrepare (PRE_AGENT_MCP rules, skip checks, context clear), then the
 * planner loop, then McpFinalize (abrupted flag, POST_AGENT_MCP rules).
 *
 * PLACEHOLDER until the MCP work lands: prepare + finalize only, no planner iterations.
 */
export async function runMcpStep(base: StepInput, exec: TurnExecutor): Promise<StepOutput> {
  const prepared = await exec.mcpPrepare({ ...base, callKey: 'mcp-prepare' });
  const audits = [...prepared.audits];
  const finalized = await exec.mcpFinalize({ ...base, session: prepared.session, callKey: 'mcp-finalize' });
  return { session: finalized.session, audits: [...audits, ...finalized.audits] };
}
