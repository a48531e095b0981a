import type { PromptTemplateRow } from '../../../core/config/types';
import { promptTemplate } from '../builders';

/** Prompts of the confirmation-first loan pack (Example 3): templates 122–127 and planner 6202. */
const LOAN = 'LOAN_APPLICATION';

export const PLANNER_SYSTEM_PROMPT = [
  'You process a confirmed loan application. Call the tools strictly in this order and stop as soon as a rule says so:',
  '1. `loan.credit.rating.check` with {"customerId"}. If creditRating <= 750, ANSWER that the application is rejected for a low credit rating.',
  '2. `loan.credit.fraud.check` with {"customerId"}. If flagged is true, ANSWER that the application is rejected after the fraud check.',
  '3. `loan.debt.credit.summary` with {"customerId"}. If dti > 0.65, ANSWER that the application needs manual review.',
  '4. `loan.application.submit` with {"customerId", "requestedAmount", "tenureMonths"}, then ANSWER with the applicationId.',
  'Tool results are in context.mcp.observations. Reply with JSON only:',
  '{"action":"CALL_TOOL"|"ANSWER","tool_code":string|null,"args":{},"answer":string|null,"operation_tag":null}.',
].join('\n');

export const PLANNER_USER_PROMPT = [
  'Application: customerId {{context.customerId}}, requestedAmount {{context.requestedAmount}}, tenureMonths {{context.tenureMonths}}.',
  'Available tools: {{mcp_tools}}',
  'Latest observations: {{mcp_observations}}',
  'Full context: {{context}}',
].join('\n');

export const loanPromptTemplates: PromptTemplateRow[] = [
  promptTemplate({
    templateId: 122,
    intentCode: LOAN,
    stateCode: 'IDLE',
    outputFormat: 'TEXT',
    interactionMode: 'IDLE',
    systemPrompt:
      'You help the user start a loan application. Ask for the customer id, the requested amount and the tenure in months.',
    userPrompt: 'User message: {{user_input}}',
  }),
  promptTemplate({
    templateId: 123,
    intentCode: LOAN,
    stateCode: 'ELIGIBILITY_GATE',
    outputFormat: 'TEXT',
    interactionMode: 'COLLECT',
    systemPrompt: 'You collect loan application details. Ask only for the missing fields, in one short question.',
    userPrompt:
      'Missing fields: {{missing_fields}}\nField details: {{schema_field_details}}\nKnown so far: {{context}}\nUser message: {{user_input}}',
  }),
  promptTemplate({
    templateId: 124,
    intentCode: LOAN,
    stateCode: 'ELIGIBILITY_GATE',
    outputFormat: 'SCHEMA_JSON',
    interactionMode: 'COLLECT',
    interactionContract: { allows: ['reset'], expects: ['structured_input'] },
    systemPrompt:
      'Extract the loan application fields from the user message as JSON matching the schema. ' +
      'customerId is a string, requestedAmount a number, tenureMonths an integer. Use null for anything not stated.',
    userPrompt: 'Schema: {{schema}}\nKnown so far: {{context}}\nUser message: {{user_input}}',
  }),
  promptTemplate({
    templateId: 125,
    intentCode: LOAN,
    stateCode: 'CONFIRMATION',
    outputFormat: 'TEXT',
    interactionMode: 'CONFIRM',
    interactionContract: { allows: ['affirm', 'edit', 'reset'] },
    systemPrompt:
      'Ask the user to confirm the loan details with exactly this sentence: ' +
      '"Please confirm: customerId <id>, requestedAmount <amount>, tenureMonths <months>. Proceed?" ' +
      'If a value was just corrected, start with "Updated. ". ' +
      'If a correction was refused, start with "I did not change <field>: please give it as one number. " ' +
      '("as a whole number" for NOT_A_WHOLE_NUMBER, "as a smaller number" for OUT_OF_RANGE).',
    userPrompt:
      'customerId {{context.customerId}}, requestedAmount {{context.requestedAmount}}, tenureMonths {{context.tenureMonths}}.\n' +
      'Correction applied this turn: {{correction_applied}}\n' +
      "Correction refused this turn: {{correction_rejected_field ?: ''}} {{correction_rejected_reason ?: ''}}\n" +
      'User message: {{user_input}}',
  }),
  promptTemplate({
    templateId: 126,
    intentCode: LOAN,
    stateCode: 'COMPLETED',
    outputFormat: 'TEXT',
    interactionMode: 'FINAL',
    systemPrompt:
      'Tell the user the outcome in one or two sentences using the planner answer. When the application was submitted, say: ' +
      '"Loan application submitted for customer <id>. Amount <amount>, tenure <months> months. Application ID <applicationId>."',
    userPrompt: 'Planner answer: {{context.mcp.finalAnswer}}\nApplication and tool results: {{context}}',
  }),
  promptTemplate({
    templateId: 127,
    intentCode: LOAN,
    stateCode: 'PROCESS_APPLICATION',
    outputFormat: 'TEXT',
    interactionMode: 'PROCESSING',
    interactionContract: { allows: ['retry', 'reset'] },
    systemPrompt: 'The loan application is being processed. If a step failed, tell the user they can say "retry".',
    userPrompt: 'Context: {{context}}',
  }),
];
