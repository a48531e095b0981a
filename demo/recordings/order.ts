import type { ScriptEntry } from '../../scripted-llm';
import { answer, callTool, field, line, observed, prompt, recording, type Part } from './match';

/**
 * Example 1 (order-diagnostics pack, planner 5101): status first, then the async-callback trace,
 * then an answer that depends on what the two HTTP tools returned (SUBMITTED, callbackAt null).
 * The direct-tool turn of the same pack makes no LLM call besides its dialogue act.
 */
const PLANNER = 'You diagnose orders.';
const STATUS = 'mock.order.status';
const TRACE = 'mock.order.async.trace';
const ORDER_ID = 'ORD-7017';

const plan = (label: string, has: Part[], lacks: Part[], reply: unknown) =>
  recording(
    `PLAN order: ${label}`,
    'PLAN',
    prompt([PLANNER, line('User message: ', [ORDER_ID]), line('Latest observations: ', has, lacks)]),
    reply
  );

const PLANNER_ANSWER = `Order ${ORDER_ID} is SUBMITTED and its async callback has not arrived (callbackAt is null).`;

export function orderRecordings(): ScriptEntry[] {
  return [
    plan('check the status', [], ['"toolCode"'], callTool(STATUS, { orderId: ORDER_ID })),
    plan(
      'submitted, trace the callback',
      [observed(STATUS), field('status', 'SUBMITTED')],
      [observed(TRACE)],
      callTool(TRACE, { orderId: ORDER_ID })
    ),
    plan('callback missing, answer', [observed(TRACE), field('callbackAt', null)], [], answer(PLANNER_ANSWER)),
    recording(
      'RESP_TEXT order: diagnosis',
      'RESP_TEXT',
      prompt([
        'Explain the diagnosis to the user',
        line('Planner answer: ', [PLANNER_ANSWER]),
        line('Tool results: ', [field('status', 'SUBMITTED'), field('callbackAt', null)]),
      ]),
      `Order ${ORDER_ID} is submitted. Async callback is pending/missing, so no callback timestamp is available yet.`
    ),
  ];
}
