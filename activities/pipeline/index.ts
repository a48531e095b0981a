import type { PipelineStepName, StepInput, StepReply } from '../../core/turn/contracts';
import type { ActivityDeps } from '../deps';
import { toolOrchestration } from '../mcp/tool-orchestration';
import { stepActivity, type StepFunction } from '../step-runtime';
import { actionLifecycle } from './action-lifecycle';
import { auditUserInput } from './audit-user-input';
import { autoAdvance } from './auto-advance';
import { correction } from './correction';
import { dialogueAct } from './dialogue-act';
import { disambiguation } from './disambiguation';
import { fallbackIntentState } from './fallback-intent-state';
import { guardrail } from './guardrail';
import { intentResolution } from './intent-resolution';
import { interactionPolicy } from './interaction-policy';
import { loadOrCreateConversation } from './load-or-create-conversation';
import { memory } from './memory';
import { pendingAction } from './pending-action';
import { persistConversation } from './persist-conversation';
import { pipelineEnd } from './pipeline-end';
import { policyEnforcement } from './policy-enforcement';
import { resetConversation } from './reset-conversation';
import { resetResolvedIntent } from './reset-resolved-intent';
import { responseResolution } from './response-resolution';
import { rules } from './rules';
import { schemaExtraction } from './schema-extraction';

export type PipelineActivities = { [K in PipelineStepName]: (input: StepInput) => Promise<StepReply> };
export type PipelineStepFunctions = { [K in PipelineStepName]: StepFunction };

export const PIPELINE_STEP_FUNCTIONS: PipelineStepFunctions = {
  LoadOrCreateConversation: loadOrCreateConversation,
  ResetConversation: resetConversation,
  AuditUserInput: auditUserInput,
  PolicyEnforcement: policyEnforcement,
  DialogueAct: dialogueAct,
  InteractionPolicy: interactionPolicy,
  ActionLifecycle: actionLifecycle,
  Correction: correction,
  Disambiguation: disambiguation,
  Guardrail: guardrail,
  IntentResolution: intentResolution,
  ResetResolvedIntent: resetResolvedIntent,
  FallbackIntentState: fallbackIntentState,
  SchemaExtraction: schemaExtraction,
  AutoAdvance: autoAdvance,
  PendingAction: pendingAction,
  ToolOrchestration: toolOrchestration,
  Rules: rules,
  ResponseResolution: responseResolution,
  Memory: memory,
  PersistConversation: persistConversation,
  PipelineEnd: pipelineEnd,
};

/**
 * One activity function per pipeline step, keyed exactly by the step names of
 * core/turn/contracts.ts. The first step pins the config version for the whole turn.
 */
export function createPipelineActivities(
  deps: ActivityDeps,
  overrides: Partial<PipelineStepFunctions> = {}
): PipelineActivities {
  const functions: PipelineStepFunctions = { ...PIPELINE_STEP_FUNCTIONS, ...overrides };
  const out = {} as PipelineActivities;
  for (const name of Object.keys(functions) as PipelineStepName[]) {
    out[name] = stepActivity({ name, run: functions[name], pinsConfig: name === 'LoadOrCreateConversation' }, deps);
  }
  return out;
}
