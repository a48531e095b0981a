import type { JsonObject } from '../core/json';
import { runConversations, type DemoRunOptions, type DemoSend, type DemoTurnRecord } from './demo-runner';

export {
  demoSummary,
  formatDemoTranscript,
  type DemoRunOptions,
  type DemoSend,
  type DemoTurnRecord,
  type DemoTurnResult,
} from './demo-runner';

/**
 * The seed conversations of the bundled demo config, as data: what the user says each turn and
 * what the engine must answer (reply, intent, state). One script and one set of expectations
 * for every transport — the in-process runner in tests, the HTTP API behind `convengine demo`.
 * Replies are exact where a seed document fixes the wording, patterns where it only fixes the facts.
 */
export type ExpectedText = string | RegExp;

export interface DemoTurn {
  message: string;
  inputParams?: JsonObject;
  expect: { reply: ExpectedText; intent: string; state: string };
}

export interface DemoConversation {
  name: string;
  /** The seed pack whose config answers it. */
  pack: string;
  description: string;
  turns: readonly DemoTurn[];
}

/** The user messages of the demo, shared with the recorded LLM completions (demo/recorded-llm.ts). */
export const DEMO_MESSAGES = {
  greeting: 'hi',
  faq: 'Can I move my connections within zapper?',
  moveStatus: (connectionId: string) => `What is the status of my move for connection ${connectionId}`,
  moveFollowUp: (connectionId: string) => `And connection ${connectionId}?`,
  loanRequest: 'I need a loan for my customer. Customer id 1234, 35000, 24 months.',
  loanEdit: 'Oh wait, change amount to 350000.',
  loanConfirm: 'Looks good, go ahead.',
  loanGoAhead: 'go ahead',
  loanEditAfterSubmit: 'change amount to 5000',
  zapperGreeting: 'Hi',
  zapperTransitions: '/sql2 show all disconnect requests where status went from 810 to 120 on march 12',
  zapperWhyFailed: 'Why did request ZPR1003 fail?',
  zapperBillbank: 'Show billbank record for disconnect id ZPDISC7003.',
  zapperDelete: "Delete from zp_disco_request where account_id='UPSA100'",
  zapperDeleteFollowUp: 'delete all disconnect requests for account UPSA100',
  orderDiagnosis: 'Order ORD-7017 was submitted by admin, callback is still null. Can you check status and trace?',
  orderDirect: 'Check order ORD-7017 status.',
} as const;

export const MOVED_CONNECTION = 'USPSC003BA100SA277CON1388';
export const IN_PROGRESS_CONNECTION = 'USPSC003BA100SA277CON1128';
const GREETING_REPLY = 'Hi, how can I help you today?';
const M = DEMO_MESSAGES;

const moveStatusReply = (id: string, status: string) => ({
  reply: `The status of your move for connection ${id} is ${status}.`,
  intent: 'MOVE_CONNECTIONS',
  state: 'COMPLETED',
});
const ZAPPER_TRANSITIONS_REPLY =
  /^Found 7 disconnect requests that went from 810 \([^)]*\) to 120 \([^)]*\) on March 12\b.*ZPR1001.*ZPR1007/;
const ZAPPER_DELETE_REFUSED = /\bnot supported\b.*\bread-only\b.*\bnothing was (changed|deleted)\b/i;
const semanticReply = (reply: ExpectedText) => ({ reply, intent: 'SEMANTIC_QUERY', state: 'COMPLETED' });
const loanConfirmReply = (amount: number) => ({
  reply: `Please confirm: customerId 1234, requestedAmount ${amount}, tenureMonths 24. Proceed?`,
  intent: 'LOAN_APPLICATION',
  state: 'CONFIRMATION',
});
const loanSubmittedReply = (amount: number) => ({
  reply: `Loan application submitted for customer 1234. Amount ${amount}, tenure 24 months. Application ID LA-90311.`,
  intent: 'LOAN_APPLICATION',
  state: 'COMPLETED',
});

export const DEMO_CONVERSATIONS: readonly DemoConversation[] = [
  {
    name: 'faq',
    pack: 'faq',
    description: 'Greeting, then an FAQ answered from ce_response (no tools).',
    turns: [
      { message: M.greeting, expect: { reply: GREETING_REPLY, intent: 'GREETING', state: 'IDLE' } },
      {
        message: M.faq,
        expect: { reply: 'Yes, internal account moves are supported.', intent: 'FAQ', state: 'IDLE' },
      },
    ],
  },
  {
    name: 'move-connections',
    pack: 'move-connections',
    description: 'Two move-status questions in one conversation: each answered from its own DB lookup.',
    turns: [
      { message: M.moveStatus(MOVED_CONNECTION), expect: moveStatusReply(MOVED_CONNECTION, 'MOVED') },
      { message: M.moveStatus(IN_PROGRESS_CONNECTION), expect: moveStatusReply(IN_PROGRESS_CONNECTION, 'IN_PROGRESS') },
    ],
  },
  {
    name: 'loan-confirmation',
    pack: 'loan-confirmation',
    description: 'Example 3: collect, confirm, edit, confirm again, then rating → fraud → debt → submit.',
    turns: [
      { message: M.loanRequest, expect: loanConfirmReply(35000) },
      {
        message: M.loanEdit,
        expect: { ...loanConfirmReply(350000), reply: `Updated. ${loanConfirmReply(350000).reply}` },
      },
      { message: M.loanConfirm, expect: loanSubmittedReply(350000) },
    ],
  },
  {
    name: 'zapper-semantic',
    pack: 'zapper-semantic',
    description: 'Example 4: read-only semantic queries over the zapper disconnect tables; a delete is refused.',
    turns: [
      { message: M.zapperGreeting, expect: { reply: GREETING_REPLY, intent: 'GREETING', state: 'IDLE' } },
      { message: M.zapperTransitions, expect: semanticReply(ZAPPER_TRANSITIONS_REPLY) },
      {
        message: M.zapperWhyFailed,
        expect: {
          reply: /^Request ZPR1003 failed\b.*\bdownstream disconnect order id is missing\b/,
          intent: 'SEMANTIC_QUERY',
          state: 'COMPLETED',
        },
      },
      {
        message: M.zapperBillbank,
        expect: {
          reply: /^Found 1 matching billbank record for disconnect ZPDISC7003\b.*\bCLOSED\b.*\b0\.00\b/,
          intent: 'SEMANTIC_QUERY',
          state: 'COMPLETED',
        },
      },
      { message: M.zapperDelete, expect: semanticReply(ZAPPER_DELETE_REFUSED) },
    ],
  },
  {
    name: 'order-diagnostics',
    pack: 'order-diagnostics',
    description: 'Example 1: the planner checks the order status, then the async-callback trace.',
    turns: [
      {
        message: M.orderDiagnosis,
        expect: {
          reply: /^Order ORD-7017 is submitted\b.*\bcallback\b.*\bpending\b/i,
          intent: 'ORDER_DIAGNOSTICS',
          state: 'COMPLETED',
        },
      },
    ],
  },
  {
    name: 'order-direct-tool',
    pack: 'order-diagnostics',
    description: 'Direct tool request (tool_request): one HTTP call, then a POST_TOOL_EXECUTION rule sets the state.',
    turns: [
      {
        message: M.orderDirect,
        inputParams: {
          tool_request: { tool_code: 'mock.order.status', tool_group: 'HTTP_API', args: { orderId: 'ORD-7017' } },
        },
        expect: {
          reply: 'Order ORD-7017 is SUBMITTED; its async callback has not been confirmed yet.',
          intent: 'ORDER_DIAGNOSTICS',
          state: 'ORDER_SUBMITTED_DIAGNOSIS',
        },
      },
    ],
  },
  // Follow-ups after a finished answer (seed "stale move ID bug": "Second request returns previous move result"):
  // each turn is answered from its own work, never with the answer of the turn before.
  {
    name: 'move-connections-follow-up',
    pack: 'move-connections',
    description:
      'A follow-up that only names another connection is looked up again, not answered with the last status.',
    turns: [
      { message: M.moveStatus(MOVED_CONNECTION), expect: moveStatusReply(MOVED_CONNECTION, 'MOVED') },
      {
        message: M.moveFollowUp(IN_PROGRESS_CONNECTION),
        expect: moveStatusReply(IN_PROGRESS_CONNECTION, 'IN_PROGRESS'),
      },
    ],
  },
  {
    name: 'zapper-follow-up',
    pack: 'zapper-semantic',
    description: 'A delete asked in plain words after an answer goes through the read-only chain again and is refused.',
    turns: [
      { message: M.zapperTransitions, expect: semanticReply(ZAPPER_TRANSITIONS_REPLY) },
      { message: M.zapperDeleteFollowUp, expect: semanticReply(ZAPPER_DELETE_REFUSED) },
    ],
  },
  {
    name: 'loan-after-submit',
    pack: 'loan-confirmation',
    description: 'An edit after the application was processed changes nothing and submits nothing again.',
    turns: [
      { message: M.loanRequest, expect: loanConfirmReply(35000) },
      { message: M.loanGoAhead, expect: loanSubmittedReply(35000) },
      {
        message: M.loanEditAfterSubmit,
        expect: {
          reply: /^The loan application for customer 1234 has already been processed, so it can no longer be changed\./,
          intent: 'LOAN_APPLICATION',
          state: 'CLOSED',
        },
      },
    ],
  },
];

/**
 * Runs the demo conversations (all, or `options.only`) through `send` and checks every reply,
 * intent and state. `send` is the transport: the in-process runner in tests, the HTTP API in the CLI.
 */
export function runDemoConversations(send: DemoSend, options: DemoRunOptions = {}): Promise<DemoTurnRecord[]> {
  return runConversations(options.conversations ?? DEMO_CONVERSATIONS, send, options);
}
