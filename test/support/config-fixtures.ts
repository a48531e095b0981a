import { emptyConfigRows } from '../../core/config/rows';
import type { ConfigRows } from '../../core/config/types';
import {
  classifier,
  configSetting,
  dbTool,
  httpTool,
  intent,
  mcpTool,
  objectSchema,
  outputSchema,
  planner,
  policy,
  promptTemplate,
  response,
  rule,
} from '../../db/seed/builders';

/**
 * A small config that passes validation and exercises every validated table: tests break one
 * row at a time and assert exactly which `table[id]` is reported.
 */
export function validBaseConfig(): ConfigRows {
  return {
    ...emptyConfigRows(),
    intents: [
      intent({ intentCode: 'GREETING', description: 'Greeting', priority: 15 }),
      intent({ intentCode: 'FAQ', description: 'FAQ', priority: 10 }),
      intent({ intentCode: 'UNKNOWN', description: 'Unknown', priority: 999 }),
      intent({ intentCode: 'LOAN_APPLICATION', description: 'Loan', priority: 20 }),
      intent({ intentCode: 'RETIRED', description: 'Retired flow', enabled: false }),
    ],
    classifiers: [
      classifier({
        classifierId: 1,
        intentCode: 'GREETING',
        stateCode: 'IDLE',
        ruleType: 'REGEX',
        pattern: '(?i)^(hi|hello)\\b',
      }),
      classifier({
        classifierId: 2,
        intentCode: 'LOAN_APPLICATION',
        stateCode: 'UNKNOWN',
        ruleType: 'CONTAINS',
        pattern: 'loan',
      }),
    ],
    rules: [
      rule({
        ruleId: 1,
        intentCode: 'GREETING',
        stateCode: 'ANY',
        ruleType: 'REGEX',
        matchPattern: '(?i)\\breset\\b',
        action: 'SET_STATE',
        actionValue: 'IDLE',
      }),
      rule({
        ruleId: 2,
        phase: 'POST_CLASSIFIER_INTENT',
        intentCode: 'LOAN_APPLICATION',
        stateCode: 'UNKNOWN',
        ruleType: 'REGEX',
        matchPattern: '.*',
        action: 'SET_STATE',
        actionValue: 'ELIGIBILITY_GATE',
      }),
      rule({
        ruleId: 3,
        phase: 'POST_SCHEMA_EXTRACTION',
        intentCode: 'LOAN_APPLICATION',
        stateCode: 'ELIGIBILITY_GATE',
        ruleType: 'JSON_PATH',
        matchPattern: '$[?(@.schemaComplete == true)]',
        action: 'SET_INPUT_PARAM',
        actionValue: '{"awaiting_confirmation":true}',
      }),
      rule({
        ruleId: 4,
        phase: 'POST_AGENT_MCP',
        intentCode: 'LOAN_APPLICATION',
        stateCode: 'ELIGIBILITY_GATE',
        ruleType: 'JSON_PATH',
        matchPattern: "$[?(@.context.mcp.finalAnswer != null && @.context.mcp.finalAnswer != '')]",
        action: 'SET_STATE',
        actionValue: 'COMPLETED',
      }),
    ],
    outputSchemas: [
      outputSchema({
        schemaId: 1,
        intentCode: 'LOAN_APPLICATION',
        stateCode: 'ELIGIBILITY_GATE',
        jsonSchema: objectSchema({ customerId: { type: 'string' }, requestedAmount: { type: 'number' } }, [
          'customerId',
        ]),
      }),
    ],
    promptTemplates: [
      promptTemplate({
        templateId: 1,
        intentCode: 'LOAN_APPLICATION',
        stateCode: 'ELIGIBILITY_GATE',
        outputFormat: 'SCHEMA_JSON',
        systemPrompt: 'Extract the fields of {{schema}}.',
        userPrompt: 'Text: {{user_input}}',
        interactionMode: 'COLLECT',
        interactionContract: { allows: ['reset'], expects: ['structured_input'] },
      }),
      promptTemplate({
        templateId: 2,
        intentCode: 'LOAN_APPLICATION',
        stateCode: 'COMPLETED',
        outputFormat: 'TEXT',
        systemPrompt: 'Summarize the outcome for the customer.',
        userPrompt: 'Answer: [[${context.mcp.finalAnswer}]]',
        interactionMode: 'FINAL',
      }),
    ],
    responses: [
      response({
        responseId: 1,
        intentCode: 'GREETING',
        stateCode: 'IDLE',
        responseType: 'EXACT',
        exactText: 'Hi, how can I help you today?',
      }),
      response({
        responseId: 2,
        intentCode: 'UNKNOWN',
        stateCode: 'ANY',
        responseType: 'EXACT',
        exactText: 'Sorry, I did not understand that.',
      }),
      response({
        responseId: 3,
        intentCode: 'LOAN_APPLICATION',
        stateCode: 'COMPLETED',
        responseType: 'DERIVED',
        derivationHint: 'Be brief.',
      }),
      response({
        responseId: 4,
        intentCode: 'LOAN_APPLICATION',
        stateCode: 'ELIGIBILITY_GATE',
        responseType: 'EXACT',
        exactText: 'Please share {{missing_fields}}.',
      }),
      response({
        responseId: 5,
        intentCode: 'FAQ',
        stateCode: 'ANY',
        responseType: 'EXACT',
        exactText: 'Here is what I know.',
      }),
    ],
    mcpTools: [
      mcpTool({
        toolId: 1,
        toolCode: 'loan.lookup',
        toolGroup: 'DB',
        intentCode: 'LOAN_APPLICATION',
        stateCode: 'ELIGIBILITY_GATE',
      }),
      mcpTool({
        toolId: 2,
        toolCode: 'loan.rating',
        toolGroup: 'HTTP_API',
        intentCode: 'LOAN_APPLICATION',
        stateCode: 'ELIGIBILITY_GATE',
      }),
      mcpTool({ toolId: 3, toolCode: 'postgres.query', toolGroup: 'SQL', intentCode: 'ANY', stateCode: 'ANY' }),
    ],
    mcpDbTools: [
      dbTool({
        toolId: 1,
        sqlTemplate: 'select status from loan where customer_id = :customer_id limit :limit',
        paramSchema: objectSchema({ customer_id: { type: 'string' } }, ['customer_id']),
        allowedIdentifiers: { table: ['loan'] },
      }),
    ],
    mcpHttpTools: [
      httpTool({
        toolId: 2,
        urlTemplate: '{{env.CONVENGINE_TOOL_DEMO_URL}}/loan/credit-rating',
        queryParams: { customerId: '{{args.customerId}}', turn: '{{ctx.turnNumber}}' },
        headers: { 'X-Conversation': '{{ctx.conversationId}}' },
        inputSchema: objectSchema({ customerId: { type: 'string' } }, ['customerId']),
        authKind: 'API_KEY',
        authSecretEnv: 'CONVENGINE_TOOL_DEMO_API_KEY',
        responseMappingKind: 'FIELD_TEMPLATE',
        responseMapping: { rating: '$.creditRating' },
      }),
    ],
    mcpPlanners: [
      planner({
        plannerId: 1,
        intentCode: 'LOAN_APPLICATION',
        stateCode: 'ELIGIBILITY_GATE',
        systemPrompt: 'Use `loan.lookup` then `loan.rating`. Tools: {{mcp_tools}}',
        userPrompt: 'User: {{user_input}} Observations: {{mcp_observations}} Context: {{context}}',
      }),
    ],
    policies: [
      policy({
        policyId: 1,
        ruleType: 'REGEX',
        pattern: '(?i)password',
        responseText: "I can't help with credentials.",
      }),
    ],
    sqlGuardrails: [
      { guardrailId: 1, ruleType: 'BLOCK_FUNCTION', matchValue: 'pg_sleep', description: null, enabled: true },
    ],
    configs: [
      configSetting({ configId: 1, configType: 'McpToolStep', configKey: 'MCP_TOOL_MAX_LOOPS', configValue: '5' }),
    ],
    semanticConcepts: [
      { conceptId: 1, conceptKey: 'LOAN', conceptKind: 'ENTITY', description: null, tags: null, enabled: true },
    ],
    semanticSynonyms: [
      { synonymId: 1, synonymText: 'credit', conceptKey: 'LOAN', domainKey: null, confidenceScore: 0.9, enabled: true },
    ],
    semanticEntities: [
      {
        entityId: 1,
        entityKey: 'LOAN',
        primaryTable: 'loan',
        relatedTables: null,
        synonyms: null,
        fieldsJson: null,
        description: null,
        enabled: true,
      },
      {
        entityId: 2,
        entityKey: 'CUSTOMER',
        primaryTable: 'customer',
        relatedTables: null,
        synonyms: null,
        fieldsJson: null,
        description: null,
        enabled: true,
      },
    ],
    semanticQueryClasses: [
      {
        queryClassId: 1,
        queryClassKey: 'LIST_LOANS',
        baseTableName: 'loan',
        description: null,
        astSkeletonJson: null,
        allowedFilterFields: null,
        defaultSelectFields: null,
        defaultSortFields: null,
        enabled: true,
      },
    ],
    semanticMappings: [
      {
        mappingId: 1,
        conceptKey: 'LOAN',
        entityKey: 'LOAN',
        fieldKey: 'status',
        mappedTable: 'loan',
        mappedColumn: 'status',
        operatorType: 'EQ',
        valueMapJson: null,
        queryClassKey: 'LIST_LOANS',
        priority: 100,
        enabled: true,
      },
    ],
    semanticJoinPaths: [
      {
        joinPathId: 1,
        leftEntityKey: 'LOAN',
        rightEntityKey: 'CUSTOMER',
        joinExpression: 'loan.customer_id = customer.id',
        priority: 100,
        enabled: true,
      },
    ],
  };
}
