import type { ScriptEntry } from '../../scripted-llm';
import { DEMO_MESSAGES } from '../conversations';
import { answer, callTool, field, line, literal, observed, prompt, recording, type Part } from './match';

/**
 * Example 4 (zapper-semantic pack). Planner 7101 runs the read-only chain as a policy over the
 * observations: interpret the question, compile it, execute it, then answer from the rows the
 * query returned (matched on the row values, so the counts, ids, statuses and amounts in the
 * answers are the database's). db.semantic.interpret and db.semantic.query are recorded per
 * question: the canonical intent of each question and the parameterized SELECT for it. The
 * delete requests are interpreted as unsupported, which ends the chain before any SQL exists.
 */
const PLANNER = 'You answer questions about zapper disconnect data';
const INTERPRET = 'db.semantic.interpret';
const QUERY = 'db.semantic.query';
const POSTGRES = 'postgres.query';
const M = DEMO_MESSAGES;

interface Question {
  message: string;
  canonicalIntent: Record<string, unknown>;
  /** What the canonical intent in the db.semantic.query prompt must show. */
  intentShows: Part[];
  sql: string;
  params: Record<string, unknown>;
  /** What the postgres.query observation must show before the planner answers … */
  rowsShow: Part[];
  /** … with this text. */
  plannerAnswer: string;
  /** What the response prompt's context must hold for the final reply. */
  contextShows: Part[];
  reply: string;
}

const intentOf = (
  intent: string,
  entity: string,
  queryClass: string,
  filters: unknown[],
  timeRange: unknown = null
) => ({
  intent,
  entity,
  queryClass,
  filters,
  timeRange,
  sort: [],
  limit: null,
});

const TRANSITION_IDS = [1001, 1002, 1003, 1004, 1005, 1006, 1007].map((n) => `ZPR${n}`);

const QUESTIONS: readonly Question[] = [
  {
    message: M.zapperTransitions,
    canonicalIntent: intentOf(
      'LIST_REQUESTS',
      'DISCONNECT_REQUEST',
      'TRANSITION_REQUESTS',
      [
        { field: 'fromStatus', op: 'EQ', value: 810 },
        { field: 'toStatus', op: 'EQ', value: 120 },
      ],
      { kind: 'ABSOLUTE', from: '2026-03-12T00:00:00Z', to: '2026-03-13T00:00:00Z', timezone: 'UTC' }
    ),
    intentShows: [
      field('queryClass', 'TRANSITION_REQUESTS'),
      field('value', 810),
      field('value', 120),
      field('from', '2026-03-12T00:00:00Z'),
    ],
    sql: [
      'select r.request_id, r.account_id, r.status_code from zp_disco_request r where exists (',
      '  select 1 from zp_disco_request_log l where l.request_id = r.request_id and l.from_status = :from_status',
      '  and l.to_status = :to_status and l.changed_at >= :start_ts and l.changed_at < :next_day_ts)',
      'order by r.request_id',
    ].join('\n'),
    params: { from_status: 810, to_status: 120, start_ts: '2026-03-12T00:00:00Z', next_day_ts: '2026-03-13T00:00:00Z' },
    rowsShow: [field('status', 'SUCCESS'), field('rowCount', 7)],
    plannerAnswer: 'Found 7 disconnect requests that went from 810 to 120 on March 12.',
    contextShows: TRANSITION_IDS.map((id) => field('request_id', id)),
    reply:
      'Found 7 disconnect requests that went from 810 (SENT_TO_DOWNSTREAM) to 120 (DISCONNECT_FAILED) on March 12: ' +
      `${TRANSITION_IDS.slice(0, -1).join(', ')} and ${TRANSITION_IDS.at(-1) ?? ''}.`,
  },
  {
    message: M.zapperWhyFailed,
    canonicalIntent: intentOf('DIAGNOSE_FAILURE', 'DOWNSTREAM_CHECK', 'REQUEST_FAILURE_DIAGNOSIS', [
      { field: 'requestId', op: 'EQ', value: 'ZPR1003' },
    ]),
    intentShows: [field('queryClass', 'REQUEST_FAILURE_DIAGNOSIS'), field('value', 'ZPR1003')],
    sql:
      'select request_id, downstream_system, downstream_disconnect_order_id, check_status, failure_reason ' +
      'from zp_order_downstream_check where request_id = :request_id order by checked_at desc',
    params: { request_id: 'ZPR1003' },
    rowsShow: [
      field('rowCount', 1),
      field('request_id', 'ZPR1003'),
      field('downstream_disconnect_order_id', null),
      field('check_status', 'FAILED'),
    ],
    plannerAnswer:
      'ZPR1003 failed its ORDER_MGMT downstream check: the downstream disconnect order id is missing (null).',
    contextShows: [field('downstream_system', 'ORDER_MGMT'), 'order management never acknowledged the disconnect'],
    reply:
      'Request ZPR1003 failed because its downstream disconnect order id is missing: order management (ORDER_MGMT) ' +
      'never acknowledged the disconnect.',
  },
  {
    message: M.zapperBillbank,
    canonicalIntent: intentOf('LOOKUP_RECORD', 'BILLBANK_RECORD', 'BILLBANK_LOOKUP', [
      { field: 'disconnectId', op: 'EQ', value: 'ZPDISC7003' },
    ]),
    intentShows: [field('queryClass', 'BILLBANK_LOOKUP'), field('value', 'ZPDISC7003')],
    sql:
      // to_char keeps the money scale (0.00): the app's pg driver reads numeric as a JS number.
      "select disconnect_id, account_id, record_status, to_char(balance, 'FM999999990.00') as balance, updated_at " +
      'from zp_billbank_record ' +
      'where disconnect_id = :disconnect_id order by updated_at desc',
    params: { disconnect_id: 'ZPDISC7003' },
    rowsShow: [
      field('rowCount', 1),
      field('disconnect_id', 'ZPDISC7003'),
      field('record_status', 'CLOSED'),
      field('balance', '0.00'),
    ],
    plannerAnswer: 'Found 1 billbank record for ZPDISC7003: CLOSED, balance 0.00.',
    contextShows: [field('account_id', 'UPSA102')],
    reply: 'Found 1 matching billbank record for disconnect ZPDISC7003: account UPSA102, status CLOSED, balance 0.00.',
  },
];

const DELETE_UNSUPPORTED =
  'Deleting disconnect requests is not supported: I can only answer read-only questions about the zapper data.';

const plan = (q: Question, label: string, has: Part[], lacks: Part[], reply: unknown) =>
  recording(
    `PLAN zapper: ${label} (${q.message})`,
    'PLAN',
    prompt([PLANNER, line('Question: ', [q.message]), line('Latest observations: ', has, lacks)]),
    reply
  );

/** interpret → query → postgres.query → answer, each step chosen by the observations so far. */
function plannerPolicy(q: Question): ScriptEntry[] {
  return [
    plan(q, 'interpret', [], ['"toolCode"'], callTool(INTERPRET, { question: q.message })),
    plan(q, 'compile', [observed(INTERPRET)], [observed(QUERY), observed(POSTGRES)], callTool(QUERY, {})),
    plan(q, 'execute', [observed(QUERY)], [observed(POSTGRES)], callTool(POSTGRES, {})),
    plan(q, 'answer', [observed(POSTGRES), ...q.rowsShow], [], answer(q.plannerAnswer)),
  ];
}

const interpretPrompt = (message: string) => prompt([new RegExp(`(?:^|\\n)Question:\\n${literal(message)}\\n`)]);

function questionRecordings(q: Question): ScriptEntry[] {
  return [
    ...plannerPolicy(q),
    recording(`SEMANTIC_INTERPRET: ${q.message}`, 'SEMANTIC_INTERPRET', interpretPrompt(q.message), {
      meta: { confidence: 0.93, needsClarification: false, clarificationQuestion: null, operationSupported: true },
      canonicalIntent: q.canonicalIntent,
    }),
    recording(`SEMANTIC_QUERY: ${q.message}`, 'SEMANTIC_QUERY', prompt([line('Canonical intent:\n', q.intentShows)]), {
      sql: q.sql,
      params: q.params,
      unsupported: false,
      reason: null,
    }),
    recording(
      `RESP_TEXT zapper: ${q.message}`,
      'RESP_TEXT',
      prompt([line('Question: ', [q.message]), line('Answer from the data: ', [q.plannerAnswer]), ...q.contextShows]),
      q.reply
    ),
  ];
}

/** A delete, as SQL or in plain words: interpreted as unsupported, which ends the chain before any SQL exists. */
function deleteRecordings(message: string): ScriptEntry[] {
  return [
    recording(
      `PLAN zapper: interpret (delete: ${message})`,
      'PLAN',
      prompt([PLANNER, line('Question: ', [message]), line('Latest observations: ', [], ['"toolCode"'])]),
      callTool(INTERPRET, { question: message })
    ),
    recording(
      `SEMANTIC_INTERPRET: delete is unsupported (${message})`,
      'SEMANTIC_INTERPRET',
      interpretPrompt(message),
      {
        meta: {
          confidence: 0.97,
          needsClarification: false,
          clarificationQuestion: null,
          operationSupported: false,
          unsupportedMessage: DELETE_UNSUPPORTED,
        },
        canonicalIntent: null,
      }
    ),
    recording(
      `RESP_TEXT zapper: delete refused (${message})`,
      'RESP_TEXT',
      prompt([line('Question: ', [message]), line('Answer from the data: ', [DELETE_UNSUPPORTED])]),
      'Sorry, deleting disconnect requests is not supported: I can only run read-only queries on the zapper data, ' +
        'so nothing was changed.'
    ),
  ];
}

export function zapperRecordings(): ScriptEntry[] {
  return [
    ...QUESTIONS.flatMap(questionRecordings),
    ...[M.zapperDelete, M.zapperDeleteFollowUp].flatMap(deleteRecordings),
  ];
}
