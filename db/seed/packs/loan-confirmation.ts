import { classifier, intent, objectSchema, outputSchema, planner, response, rule } from '../builders';
import type { SeedPack } from '../types';
import { loanProgressRows } from './progress';
import { loanHttpTools, loanMcpTools, SUBMIT } from './loan-confirmation-tools';
import { PLANNER_SYSTEM_PROMPT, PLANNER_USER_PROMPT, loanPromptTemplates } from './loan-confirmation-prompts';
import {
  acknowledgedResponse,
  acknowledgedRules,
  acknowledgementRule,
  afterCompletedRule,
  nextMessageRule,
  sharedRows,
} from './shared';

/**
 * Example 3 (§12.5, seed 001): confirmation-first loan application, ids exactly as documented.
 * IDLE → ELIGIBILITY_GATE → CONFIRMATION → PROCESS_APPLICATION → COMPLETED, then CLOSED for any later
 * message (rule 136, response 228: the processed application is neither changed nor resubmitted, and the
 * COMPLETED reply, which quotes the planner's answer of the turn that processed it, is not repeated). An
 * acknowledgement such as "ok thanks" after it is answered by response 229 instead (rules 137–140). A planner run
 * whose call was stopped before it ran (a rejected or expired approval: lifecycle.blocked) submitted nothing: rule
 * 141 goes back to CONFIRMATION instead of COMPLETED; a refused approval of the submit goes on to APPROVAL_REFUSED or
 * APPROVAL_NOT_GIVEN (rules 142–143), whose replies (230, 231) say so, and the next message there is taken as in
 * CONFIRMATION (rules 144–145).
 * Bootstrap rules use POST_CLASSIFIER_INTENT (the documented POST_AGENT_INTENT never fires after a
 * classifier match).
 */
const LOAN = 'LOAN_APPLICATION';
const SCHEMA_COMPLETE = '$[?(@.schemaComplete == true)]';

/** The states a submit whose approval was refused ends in, by the planner's lifecycle status, and what they say. */
const REFUSED_APPROVALS = [
  { ruleId: 142, responseId: 230, status: 'APPROVAL_REJECTED', state: 'APPROVAL_REFUSED', why: 'was refused' },
  {
    ruleId: 143,
    responseId: 231,
    status: 'APPROVAL_EXPIRED',
    state: 'APPROVAL_NOT_GIVEN',
    why: 'was not given in time',
  },
] as const;

const refusedApprovalRules = REFUSED_APPROVALS.flatMap(({ ruleId, status, state, why }) => [
  rule({
    ruleId,
    intentCode: LOAN,
    stateCode: 'PROCESS_APPLICATION',
    phase: 'POST_AGENT_MCP',
    ruleType: 'JSON_PATH',
    matchPattern: `$[?(@.context.mcp.lifecycle.status == '${status}' && @.context.mcp.lifecycle.lastToolCode == '${SUBMIT}')]`,
    action: 'SET_STATE',
    actionValue: state,
    // After rule 141 (priority 100), which fires too (all matching rules do), so this one wins.
    priority: 200,
    description: `The submit's approval ${why}: say so, not only ask to confirm again.`,
  }),
  nextMessageRule(
    ruleId + 2,
    LOAN,
    state,
    'CONFIRMATION',
    'The next message after a refused approval is taken as in CONFIRMATION: "go ahead" asks for it again, an edit edits.'
  ),
]);

const refusedApprovalResponses = REFUSED_APPROVALS.map(({ responseId, state, why }) =>
  response({
    responseId,
    intentCode: LOAN,
    stateCode: state,
    responseType: 'EXACT',
    exactText:
      'The loan application for customer {{context.customerId}} (amount {{context.requestedAmount}}, tenure ' +
      `{{context.tenureMonths}} months) was not submitted: the approval it needs ${why}. Say "go ahead" to send the ` +
      'same details for approval again, or change a detail first, for example "change amount to 30000".',
    description: `The submit's approval ${why}: nothing was submitted.`,
  })
);

export const loanConfirmationPack: SeedPack = {
  name: 'loan-confirmation',
  description:
    'Confirmation-first loan application (Example 3): collect, confirm or edit, then a four-tool planner chain.',
  rows: {
    intents: [
      ...(sharedRows.intents ?? []),
      intent({
        intentCode: LOAN,
        description: 'Apply for a loan for a customer: collect customer id, amount and tenure, confirm, then process.',
        priority: 30,
        displayName: 'Loan application',
        llmHint: 'Mentions a loan, an amount and a tenure in months.',
      }),
    ],
    classifiers: [
      ...(sharedRows.classifiers ?? []),
      classifier({
        classifierId: 108,
        intentCode: LOAN,
        stateCode: 'IDLE',
        ruleType: 'REGEX',
        pattern: '(?i)\\bloan\\b',
        priority: 30,
      }),
    ],
    outputSchemas: [
      outputSchema({
        schemaId: 109,
        intentCode: LOAN,
        stateCode: 'ELIGIBILITY_GATE',
        description: 'Loan application fields.',
        jsonSchema: objectSchema(
          {
            customerId: { type: 'string', description: 'Customer id, e.g. 1234' },
            requestedAmount: { type: 'number', description: 'Requested loan amount' },
            tenureMonths: { type: 'integer', description: 'Loan tenure in months' },
          },
          ['customerId', 'requestedAmount', 'tenureMonths']
        ),
      }),
    ],
    promptTemplates: loanPromptTemplates,
    responses: [
      ...(sharedRows.responses ?? []),
      response({
        responseId: 223,
        intentCode: LOAN,
        stateCode: 'IDLE',
        responseType: 'DERIVED',
        derivationHint: 'Invite the user to share the loan details.',
      }),
      response({
        responseId: 224,
        intentCode: LOAN,
        stateCode: 'ELIGIBILITY_GATE',
        responseType: 'DERIVED',
        derivationHint: 'Ask only for what is missing.',
      }),
      response({
        responseId: 225,
        intentCode: LOAN,
        stateCode: 'CONFIRMATION',
        responseType: 'DERIVED',
        derivationHint: 'Use the confirmation sentence verbatim.',
      }),
      response({
        responseId: 226,
        intentCode: LOAN,
        stateCode: 'COMPLETED',
        responseType: 'DERIVED',
        derivationHint: 'Quote the application id when there is one.',
      }),
      response({
        responseId: 227,
        intentCode: LOAN,
        stateCode: 'PROCESS_APPLICATION',
        responseType: 'EXACT',
        exactText: 'Processing your loan application now.',
      }),
      response({
        responseId: 228,
        intentCode: LOAN,
        stateCode: 'CLOSED',
        responseType: 'EXACT',
        exactText:
          'The loan application for customer {{context.customerId}} has already been processed, so it can no longer ' +
          'be changed. To apply with other details, start a new application, for example: "I need a loan for my ' +
          'customer. Customer id 1234, 35000, 24 months."',
        description: 'A message after the application was processed: nothing is submitted again.',
      }),
      acknowledgedResponse(
        229,
        LOAN,
        'To apply for another loan, say for example: "I need a loan for my customer. Customer id 1234, 35000, 24 months."'
      ),
      ...refusedApprovalResponses,
    ],
    rules: [
      ...(sharedRows.rules ?? []),
      ...(['IDLE', 'UNKNOWN'] as const).map((state, i) =>
        rule({
          ruleId: 128 + i,
          intentCode: LOAN,
          stateCode: state,
          phase: 'POST_CLASSIFIER_INTENT',
          ruleType: 'REGEX',
          matchPattern: '.*',
          action: 'SET_STATE',
          actionValue: 'ELIGIBILITY_GATE',
          priority: 10,
          description: `Start collecting details from ${state}.`,
        })
      ),
      rule({
        ruleId: 130,
        intentCode: LOAN,
        stateCode: 'ELIGIBILITY_GATE',
        phase: 'POST_SCHEMA_EXTRACTION',
        ruleType: 'JSON_PATH',
        matchPattern: SCHEMA_COMPLETE,
        action: 'SET_STATE',
        actionValue: 'CONFIRMATION',
        priority: 10,
        description: 'All fields collected: ask for confirmation.',
      }),
      rule({
        ruleId: 134,
        intentCode: LOAN,
        stateCode: 'ELIGIBILITY_GATE',
        phase: 'POST_SCHEMA_EXTRACTION',
        ruleType: 'JSON_PATH',
        matchPattern: SCHEMA_COMPLETE,
        action: 'SET_INPUT_PARAM',
        actionValue: '{"awaiting_confirmation":true,"confirmation_key":"LOAN_APPLICATION_CONFIRM"}',
        priority: 20,
        description: 'Flag the pending confirmation.',
      }),
      rule({
        ruleId: 135,
        intentCode: LOAN,
        stateCode: 'ANY',
        phase: 'POST_DIALOGUE_ACT',
        ruleType: 'JSON_PATH',
        matchPattern: "$[?(@.inputParams.dialogue_act_source == 'REGEX_GUARD')]",
        action: 'SET_DIALOGUE_ACT',
        actionValue: '{"dialogueAct":"EDIT","source":"POST_DIALOGUE_ACT_RULE"}',
        description: 'An LLM RESET guarded back by the regex is treated as an edit request.',
      }),
      rule({
        ruleId: 131,
        intentCode: LOAN,
        stateCode: 'CONFIRMATION',
        phase: 'PRE_AGENT_MCP',
        ruleType: 'JSON_PATH',
        matchPattern: "$[?(@.inputParams.routing_decision == 'PROCEED_CONFIRMED')]",
        action: 'SET_STATE',
        actionValue: 'PROCESS_APPLICATION',
        description: 'Confirmed: process the application in this same turn.',
      }),
      rule({
        ruleId: 132,
        intentCode: LOAN,
        stateCode: 'CONFIRMATION',
        phase: 'PRE_RESPONSE_RESOLUTION',
        ruleType: 'JSON_PATH',
        matchPattern: '$[?(@.inputParams.correction_applied == true)]',
        action: 'SET_STATE',
        actionValue: 'CONFIRMATION',
        description: 'After an edit, confirm again.',
      }),
      rule({
        ruleId: 133,
        intentCode: LOAN,
        stateCode: 'PROCESS_APPLICATION',
        phase: 'POST_AGENT_MCP',
        ruleType: 'JSON_PATH',
        matchPattern:
          "$[?(@.context.mcp.lifecycle.finished == true && @.context.mcp.lifecycle.error == false && @.context.mcp.lifecycle.blocked == false && @.context.mcp.finalAnswer != null && @.context.mcp.finalAnswer != '')]",
        action: 'SET_STATE',
        actionValue: 'COMPLETED',
        description: 'The planner finished without error and answered, no call of it blocked (a rejected approval).',
      }),
      rule({
        ruleId: 141,
        intentCode: LOAN,
        stateCode: 'PROCESS_APPLICATION',
        phase: 'POST_AGENT_MCP',
        ruleType: 'JSON_PATH',
        matchPattern: '$[?(@.context.mcp.lifecycle.blocked == true)]',
        action: 'SET_STATE',
        actionValue: 'CONFIRMATION',
        description:
          'A call was stopped before it ran (its approval rejected or expired, a guardrail): nothing was submitted, ' +
          'so confirm (or edit) the details again.',
      }),
      afterCompletedRule(
        136,
        LOAN,
        'CLOSED',
        'A later message about a processed application (an edit, another "go ahead") cannot change or resubmit it.'
      ),
      acknowledgementRule(137, LOAN, 'COMPLETED'),
      acknowledgementRule(138, LOAN, 'CLOSED'),
      ...acknowledgedRules(139, LOAN, 'CLOSED'),
      ...refusedApprovalRules,
    ],
    verboses: loanProgressRows,
    mcpPlanners: [
      planner({
        plannerId: 6202,
        intentCode: LOAN,
        stateCode: 'PROCESS_APPLICATION',
        systemPrompt: PLANNER_SYSTEM_PROMPT,
        userPrompt: PLANNER_USER_PROMPT,
      }),
    ],
    mcpTools: loanMcpTools,
    mcpHttpTools: loanHttpTools,
  },
  business: [],
  utterances: [
    'I need a loan for my customer. Customer id 1234, 35000, 24 months.',
    'change amount to 350000',
    'go ahead',
  ],
};
