import { classifier, intent, mcpTool, planner, promptTemplate, response, rule } from '../builders';
import type { SeedPack } from '../types';
import { acknowledgedResponse, acknowledgedRules, acknowledgementRule, afterCompletedRule, sharedRows } from './shared';
import { zapperBusinessTables } from './zapper-business';
import { zapperSemanticRows } from './zapper-semantic-metadata';

/**
 * Example 4 (§12.6): zapper disconnect questions answered through the read-only semantic query
 * chain db.semantic.interpret → db.semantic.query → postgres.query. A message after an answer starts a
 * new analysis (rule 71), so a follow-up is never answered by re-summarizing the last answer; an acknowledgement
 * such as "ok thanks" is answered by response 72 (rules 72–74), without a new analysis. Ids 70–79,
 * tools 7001–7003, planner 7101, semantic rows 701+.
 */
const SQ = 'SEMANTIC_QUERY';

export const zapperSemanticPack: SeedPack = {
  name: 'zapper-semantic',
  description: 'Zapper disconnect analytics through the guarded semantic query chain (read-only SQL).',
  rows: {
    intents: [
      ...(sharedRows.intents ?? []),
      intent({
        intentCode: SQ,
        description:
          'Questions about zapper disconnect requests, their status history, downstream checks and billbank records.',
        priority: 50,
        displayName: 'Semantic query',
        llmHint:
          'Show/list/why questions about disconnect requests (ZPR…), disconnect ids (ZPDISC…) or accounts (UPSA…).',
      }),
    ],
    classifiers: [
      ...(sharedRows.classifiers ?? []),
      classifier({
        classifierId: 70,
        intentCode: SQ,
        stateCode: 'ANALYZE',
        ruleType: 'REGEX',
        pattern:
          '(?i)^\\s*/sql2\\b|\\b(show|list)\\b.*\\b(disconnect|billbank|zp_\\w+)|\\bwhy\\b.*\\brequest\\s+ZPR\\d+|' +
          '\\bdelete\\s+from\\s+zp_\\w+|\\b(delete|remove)\\b.*\\b(disconnect|billbank)',
        priority: 50,
        description:
          '/sql2 commands and show/list/why/delete questions about zapper disconnect data (a delete goes to the read-only ' +
          'chain, which refuses it).',
      }),
    ],
    rules: [
      ...(sharedRows.rules ?? []),
      rule({
        ruleId: 70,
        intentCode: SQ,
        stateCode: 'ANALYZE',
        phase: 'POST_AGENT_MCP',
        ruleType: 'JSON_PATH',
        matchPattern: "$[?(@.context.mcp.finalAnswer != null && @.context.mcp.finalAnswer != '')]",
        action: 'SET_STATE',
        actionValue: 'COMPLETED',
        description: 'The chain produced an answer (or a clarification / unsupported message).',
      }),
      afterCompletedRule(
        71,
        SQ,
        'ANALYZE',
        'A message after an answer is a new question (or the reply to a clarification): analyze it, never re-summarize ' +
          'the last answer.'
      ),
      acknowledgementRule(72, SQ, 'COMPLETED'),
      ...acknowledgedRules(73, SQ, 'ANALYZE'),
    ],
    mcpTools: [
      [
        'db.semantic.interpret',
        'Turns the question into a canonical intent (entity, query class, filters, time range). Args: question.',
      ],
      [
        'db.semantic.query',
        'Compiles the canonical intent of the last interpret into read-only SQL with named params. Args: {}.',
      ],
      [
        'postgres.query',
        'Executes the compiled read-only SQL. Args: {} (query and params come from the last db.semantic.query).',
      ],
    ].map(([toolCode, description], i) =>
      mcpTool({
        toolId: 7001 + i,
        toolCode: toolCode as string,
        toolGroup: 'DB',
        intentCode: SQ,
        stateCode: 'ANALYZE',
        description,
      })
    ),
    mcpPlanners: [
      planner({
        plannerId: 7101,
        intentCode: SQ,
        stateCode: 'ANALYZE',
        systemPrompt: [
          'You answer questions about zapper disconnect data with a strict, read-only chain:',
          '1. `db.semantic.interpret` with {"question": <the user question>}.',
          '   If its meta.needsClarification is true, or meta.unsupported is true, stop and ANSWER with its clarificationQuestion or unsupportedMessage.',
          '2. `db.semantic.query` with {} (the canonical intent is passed for you).',
          '3. `postgres.query` with {} (the compiled SQL and params are passed for you).',
          '4. ANSWER with a short factual summary of the rows (counts, ids, statuses, amounts).',
          'Never write data: deletes, updates and inserts are not supported. Reply with JSON only:',
          '{"action":"CALL_TOOL"|"ANSWER","tool_code":string|null,"args":{},"answer":string|null,"operation_tag":string|null}.',
        ].join('\n'),
        userPrompt: [
          'Question: {{user_input}}',
          'Standalone question: {{standalone_query}}',
          'Available tools: {{mcp_tools}}',
          'Latest observations: {{mcp_observations}}',
          'Full context: {{context}}',
          'Today: {{current_date}}',
        ].join('\n'),
      }),
    ],
    promptTemplates: [
      promptTemplate({
        templateId: 70,
        intentCode: SQ,
        stateCode: 'COMPLETED',
        outputFormat: 'TEXT',
        interactionMode: 'FINAL',
        systemPrompt:
          'Summarize the query result for an operations analyst in one or two sentences. Quote ids, counts, statuses and amounts exactly.',
        userPrompt: 'Question: {{user_input}}\nAnswer from the data: {{context.mcp.finalAnswer}}\nContext: {{context}}',
      }),
    ],
    responses: [
      ...(sharedRows.responses ?? []),
      response({
        responseId: 70,
        intentCode: SQ,
        stateCode: 'COMPLETED',
        responseType: 'DERIVED',
        derivationHint: 'Do not invent rows.',
      }),
      response({
        responseId: 71,
        intentCode: SQ,
        stateCode: 'ANALYZE',
        responseType: 'EXACT',
        exactText: 'I could not complete that query. Please rephrase it or narrow it down.',
      }),
      acknowledgedResponse(
        72,
        SQ,
        'Ask another question about disconnect requests, for example: "Why did request ZPR1003 fail?"'
      ),
    ],
    ...zapperSemanticRows,
  },
  business: zapperBusinessTables,
  utterances: [
    'Hi',
    '/sql2 show all disconnect requests where status went from 810 to 120 on march 12',
    'Why did request ZPR1003 fail?',
    'Show billbank record for disconnect id ZPDISC7003.',
    "Delete from zp_disco_request where account_id='UPSA100'",
    'delete all disconnect requests for account UPSA100',
  ],
};
