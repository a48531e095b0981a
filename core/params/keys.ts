/** Input param names the engine itself reads or writes (the system input params of §8.1). */
export const P = {
  dialogueAct: 'dialogue_act',
  dialogueActConfidence: 'dialogue_act_confidence',
  dialogueActSource: 'dialogue_act_source',
  standaloneQuery: 'standalone_query',
  resolvedUserInput: 'resolved_user_input',
  policyDecision: 'policy_decision',
  skipIntentResolution: 'skip_intent_resolution',
  skipSchemaExtraction: 'skip_schema_extraction',
  skipToolExecution: 'skip_tool_execution',
  skipPendingActionExecution: 'skip_pending_action_execution',
  routingDecision: 'routing_decision',
  correctionApplied: 'correction_applied',
  correctionTargetField: 'correction_target_field',
  correctionRejectedField: 'correction_rejected_field',
  correctionRejectedReason: 'correction_rejected_reason',
  guardrailBlocked: 'guardrail_blocked',
  guardrailReason: 'guardrail_reason',
  approvalGranted: 'approval_granted',
  schemaId: 'schema_id',
  missingFields: 'missing_fields',
  toolRequest: 'tool_request',
  pendingActionResult: 'pending_action_result',
  pendingActionKey: 'pending_action_key',
  memorySessionSummary: 'memory_session_summary',
} as const;

/**
 * Params that only mean something for the request that carried them (D10, §13.3 #10). They are
 * never carried from the persisted input params into a later turn.
 */
export const REQUEST_SCOPED_PARAMS: readonly string[] = [
  'tool_request',
  'reset',
  'restart',
  'conversation_reset',
  'skip_tool_execution',
  'skip_pending_action_execution',
  'skip_schema_extraction',
  'skip_intent_resolution',
  'approval_granted',
  'approvalGranted',
  'guardrail_blocked',
  'guardrail_reason',
  'force_intent_resolution',
  'pending_action_disambiguation_required',
  'pending_action_result',
  'tool_result',
  'tool_status',
];
