import { classifier, dbTool, intent, mcpTool, objectSchema, planner, response, rule } from '../builders';
import type { SeedPack } from '../types';
import { moveProgressRows } from './progress';
import { acknowledgedResponse, acknowledgedRules, acknowledgementRule, sharedRows } from './shared';

/** COMPLETED without this turn's answer: the message named no connection (an earlier answer is never repeated). */
const ASK_EXAMPLE = 'What is the status of my move for connection USPSC003BA100SA277CON1388';
const ASK_FOR_CONNECTION = `Which connection should I check? Name its id, for example: ${ASK_EXAMPLE}`;
const FINAL_ANSWER_PRESENT = "$[?(@.context.mcp.finalAnswer != null && @.context.mcp.finalAnswer != '')]";

/**
 * §12.2 MOVE_CONNECTIONS with the seed architecture page's DB tool: the planner calls
 * `postgres.move_status`, answers, and a POST_AGENT_MCP rule moves to COMPLETED, whose EXACT
 * response is the planner's final answer. A later message naming a connection goes back to
 * MOVE_STATUS (classifier 21), so each turn is answered from its own lookup (the seed's "stale move
 * ID bug"); an acknowledgement such as "ok thanks" is answered by response 22 (rule 21), and a message after it is
 * handled as one after the answer (rules 22, 23). Ids 20–29, tool 2001, planner 4101.
 */

export const moveConnectionsPack: SeedPack = {
  name: 'move-connections',
  description: 'Move status lookup through the planner and a read-only DB tool.',
  rows: {
    intents: [
      ...(sharedRows.intents ?? []),
      intent({
        intentCode: 'MOVE_CONNECTIONS',
        description: 'The user asks for the status of moving a connection, naming the connection id.',
        priority: 20,
        displayName: 'Move connections',
        llmHint: 'Status of a move for a connection id such as USPSC003BA100SA277CON1388.',
      }),
    ],
    classifiers: [
      ...(sharedRows.classifiers ?? []),
      classifier({
        classifierId: 20,
        intentCode: 'MOVE_CONNECTIONS',
        stateCode: 'MOVE_STATUS',
        ruleType: 'REGEX',
        pattern: '(?i)\\bstatus of my move\\b|\\bmove\\b.*\\bconnection\\s+[A-Z0-9]{12,}',
        priority: 20,
        description: 'A move status question that names a connection id.',
      }),
      classifier({
        classifierId: 21,
        intentCode: 'MOVE_CONNECTIONS',
        stateCode: 'MOVE_STATUS',
        ruleType: 'REGEX',
        pattern: '(?i)\\bconnection\\s+[A-Z0-9]{12,}',
        priority: 21,
        description:
          'A follow-up that names another connection ("And connection USPSC003BA100SA277CON1128?"): look it up again, ' +
          'also from COMPLETED.',
      }),
    ],
    rules: [
      ...(sharedRows.rules ?? []),
      rule({
        ruleId: 20,
        intentCode: 'MOVE_CONNECTIONS',
        stateCode: 'MOVE_STATUS',
        phase: 'POST_AGENT_MCP',
        ruleType: 'JSON_PATH',
        matchPattern: FINAL_ANSWER_PRESENT,
        action: 'SET_STATE',
        actionValue: 'COMPLETED',
        description: 'The planner answered: the move status is known.',
      }),
      acknowledgementRule(21, 'MOVE_CONNECTIONS', 'COMPLETED'),
      ...acknowledgedRules(22, 'MOVE_CONNECTIONS', 'COMPLETED'),
    ],
    mcpTools: [
      mcpTool({
        toolId: 2001,
        toolCode: 'postgres.move_status',
        toolGroup: 'DB',
        intentCode: 'MOVE_CONNECTIONS',
        stateCode: 'MOVE_STATUS',
        description: 'Current move status of one connection. Args: connection_id (string).',
      }),
    ],
    mcpDbTools: [
      dbTool({
        toolId: 2001,
        sqlTemplate: 'select status from move_request where connection_id = :connection_id',
        paramSchema: objectSchema({ connection_id: { type: 'string' } }, ['connection_id']),
        safeMode: true,
        maxRows: 200,
      }),
    ],
    verboses: moveProgressRows,
    mcpPlanners: [
      planner({
        plannerId: 4101,
        intentCode: 'MOVE_CONNECTIONS',
        stateCode: 'MOVE_STATUS',
        systemPrompt: [
          'You answer questions about moving connections. Use `postgres.move_status` with the connection id',
          'from the user message (args: {"connection_id": "<id>"}), then ANSWER in one sentence:',
          '"The status of your move for connection <id> is <status>." Never guess a status.',
          'Reply with JSON only: {"action":"CALL_TOOL"|"ANSWER","tool_code":…,"args":{…},"answer":…,"operation_tag":null}.',
        ].join('\n'),
        userPrompt: [
          'User message: {{user_input}}',
          'Available tools: {{mcp_tools}}',
          'Observations so far: {{mcp_observations}}',
        ].join('\n'),
      }),
    ],
    responses: [
      ...(sharedRows.responses ?? []),
      response({
        responseId: 20,
        intentCode: 'MOVE_CONNECTIONS',
        stateCode: 'COMPLETED',
        responseType: 'EXACT',
        exactText: `[[\${context.mcp.finalAnswer ?: '${ASK_FOR_CONNECTION}'}]]`,
        description: "The planner's final answer, verbatim; without one this turn, which connection to check.",
      }),
      response({
        responseId: 21,
        intentCode: 'MOVE_CONNECTIONS',
        stateCode: 'MOVE_STATUS',
        responseType: 'EXACT',
        exactText: 'I could not determine the move status right now. Please try again.',
        description: 'The planner stopped without an answer (e.g. loop limit).',
      }),
      acknowledgedResponse(
        22,
        'MOVE_CONNECTIONS',
        `To check another move, name its connection id, for example: ${ASK_EXAMPLE}`
      ),
    ],
  },
  business: [
    {
      name: 'move_request',
      columns: { connection_id: 'text NOT NULL', status: 'text NOT NULL', requested_at: 'timestamptz' },
      primaryKey: ['connection_id'],
      rows: [
        { connection_id: 'USPSC003BA100SA277CON1388', status: 'MOVED', requested_at: '2026-03-02T10:00:00Z' },
        { connection_id: 'USPSC003BA100SA277CON1128', status: 'IN_PROGRESS', requested_at: '2026-03-09T14:30:00Z' },
      ],
    },
  ],
  utterances: [
    'What is the status of my move for connection USPSC003BA100SA277CON1388',
    'What is the status of my move for connection USPSC003BA100SA277CON1128',
    'And connection USPSC003BA100SA277CON1128?',
  ],
};
