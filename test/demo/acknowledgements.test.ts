import {
  DEMO_MESSAGES,
  formatDemoTranscript,
  IN_PROGRESS_CONNECTION,
  MOVED_CONNECTION,
  runDemoConversations,
  type DemoConversation,
  type ExpectedText,
} from '../../demo/conversations';
import { listAudits } from '../../db/repositories/audit';
import { DemoHarness } from './demo-harness';

/**
 * "ok thanks" after an answer, on the keyless demo (`convengine start` without an API key). After the direct order
 * tool's answer it got the TURN_FAILED text: response 52 reads the tool's result, which a turn that ran no tool does
 * not have (TURN_OUTPUT_MISSING). After a planner's answer it ran the planner (and its tools) again on "thanks", and
 * after the loan or the FAQ answer it got a reply that did not fit. Each bundled pack now has an ACKNOWLEDGED state
 * for it, and the user can go on with another request.
 */
const M = DEMO_MESSAGES;
const ORDER = 'ORDER_DIAGNOSTICS';
const DIRECT_STATUS = {
  tool_request: { tool_code: 'mock.order.status', tool_group: 'HTTP_API', args: { orderId: 'ORD-7017' } },
};
const DIRECT_REPLY = 'Order ORD-7017 is SUBMITTED; its async callback has not been confirmed yet.';
const ORDER_ACK = 'Glad I could help. To check another order, name its id, for example: "Check order ORD-7017 status."';
const directTurn = {
  message: M.orderDirect,
  inputParams: DIRECT_STATUS,
  expect: { reply: DIRECT_REPLY, intent: ORDER, state: 'ORDER_SUBMITTED_DIAGNOSIS' },
};
const acknowledged = (message: string, intent: string, reply: ExpectedText) => ({
  message,
  expect: { reply, intent, state: 'ACKNOWLEDGED' },
});

function conversation(name: string, pack: string, turns: DemoConversation['turns']): DemoConversation {
  return { name, pack, description: name, turns };
}

const CONVERSATIONS: readonly DemoConversation[] = [
  conversation('order: direct answer, thanks, another order', 'order-diagnostics', [
    directTurn,
    acknowledged('ok thanks', ORDER, ORDER_ACK),
    acknowledged('great', ORDER, ORDER_ACK),
    directTurn,
    acknowledged('Thank you very much!', ORDER, ORDER_ACK),
  ]),
  conversation('order: planner answer, thanks, a question after it', 'order-diagnostics', [
    {
      message: M.orderDiagnosis,
      expect: { reply: /^Order ORD-7017 is submitted\b/, intent: ORDER, state: 'COMPLETED' },
    },
    acknowledged('ok', ORDER, ORDER_ACK),
    { message: 'what about ORD-7017?', expect: { reply: /\bORD-7017\b/, intent: ORDER, state: 'COMPLETED' } },
  ]),
  conversation('order: a question after the direct answer is analyzed, not failed', 'order-diagnostics', [
    directTurn,
    { message: 'what about ORD-7017?', expect: { reply: /\bORD-7017\b/, intent: ORDER, state: 'COMPLETED' } },
  ]),
  conversation('loan: thanks after the submit, then an edit', 'loan-confirmation', [
    {
      message: M.loanRequest,
      expect: { reply: /^Please confirm\b/, intent: 'LOAN_APPLICATION', state: 'CONFIRMATION' },
    },
    {
      message: M.loanGoAhead,
      expect: { reply: /^Loan application submitted\b/, intent: 'LOAN_APPLICATION', state: 'COMPLETED' },
    },
    acknowledged('ok thanks', 'LOAN_APPLICATION', /^Glad I could help\. To apply for another loan\b/),
    {
      message: M.loanEditAfterSubmit,
      expect: { reply: /\bcan no longer be changed\b/, intent: 'LOAN_APPLICATION', state: 'CLOSED' },
    },
    acknowledged('thanks', 'LOAN_APPLICATION', /^Glad I could help\. To apply for another loan\b/),
  ]),
  conversation('move, faq and zapper: thanks after the answer', 'move-connections', [
    {
      message: M.moveStatus(MOVED_CONNECTION),
      expect: { reply: /\bis MOVED\.$/, intent: 'MOVE_CONNECTIONS', state: 'COMPLETED' },
    },
    acknowledged('thanks!', 'MOVE_CONNECTIONS', /^Glad I could help\. To check another move\b/),
    { message: M.faq, expect: { reply: 'Yes, internal account moves are supported.', intent: 'FAQ', state: 'IDLE' } },
    acknowledged('cool, thanks', 'FAQ', /^Glad I could help\. Anything else\?/),
    {
      message: M.zapperWhyFailed,
      expect: { reply: /^Request ZPR1003 failed\b/, intent: 'SEMANTIC_QUERY', state: 'COMPLETED' },
    },
    acknowledged(
      'ok thanks',
      'SEMANTIC_QUERY',
      /^Glad I could help\. Ask another question about disconnect requests\b/
    ),
  ]),
];

/** A message no classifier routes: it keeps the conversation's intent and state. */
const UNCLASSIFIED = 'and what about the other one?';
const ASK_FOR_CONNECTION = /^Which connection should I check\?/;
const FAQ_ANSWER = 'Yes, internal account moves are supported.';

/**
 * After the move or the FAQ acknowledgement, a message nothing classifies stayed in ACKNOWLEDGED and was acknowledged
 * again: those packs had no rule out of ACKNOWLEDGED, as the order, loan and zapper packs have (acknowledgedRules).
 */
const AFTER_ACKNOWLEDGEMENT: readonly DemoConversation[] = [
  conversation('move: a message after the thanks is handled as one after the answer', 'move-connections', [
    {
      message: M.moveStatus(MOVED_CONNECTION),
      expect: { reply: /\bis MOVED\.$/, intent: 'MOVE_CONNECTIONS', state: 'COMPLETED' },
    },
    acknowledged('thanks!', 'MOVE_CONNECTIONS', /^Glad I could help\. To check another move\b/),
    { message: UNCLASSIFIED, expect: { reply: ASK_FOR_CONNECTION, intent: 'MOVE_CONNECTIONS', state: 'COMPLETED' } },
    acknowledged('ok', 'MOVE_CONNECTIONS', /^Glad I could help\. To check another move\b/),
    acknowledged('great, thanks', 'MOVE_CONNECTIONS', /^Glad I could help\. To check another move\b/),
    {
      message: `And connection ${IN_PROGRESS_CONNECTION}?`,
      expect: { reply: /\bis IN_PROGRESS\.$/, intent: 'MOVE_CONNECTIONS', state: 'COMPLETED' },
    },
  ]),
  conversation('faq: a message after the thanks is handled as one after the answer', 'faq', [
    { message: M.faq, expect: { reply: FAQ_ANSWER, intent: 'FAQ', state: 'IDLE' } },
    acknowledged('cool, thanks', 'FAQ', /^Glad I could help\. Anything else\?/),
    { message: UNCLASSIFIED, expect: { reply: FAQ_ANSWER, intent: 'FAQ', state: 'IDLE' } },
    acknowledged('thanks', 'FAQ', /^Glad I could help\. Anything else\?/),
    acknowledged('ok', 'FAQ', /^Glad I could help\. Anything else\?/),
  ]),
];

describe('keyless demo: an acknowledgement after an answer', () => {
  let h: DemoHarness;
  beforeAll(async () => {
    h = await DemoHarness.start({ fallback: true });
  }, 120_000);
  afterAll(async () => h?.stop());

  it('is answered as one, in every bundled pack, and the conversation goes on', async () => {
    h.toolServer.counters.reset();
    const records = await runDemoConversations(h.send, { conversations: CONVERSATIONS });
    expect(formatDemoTranscript(records.filter((r) => !r.ok))).toBe('');
    expect(records).toHaveLength(CONVERSATIONS.reduce((n, c) => n + c.turns.length, 0));
    // The loan was submitted once: neither the acknowledgements nor the edit after them submitted it again.
    expect(h.toolServer.counters.requests('/loan/applications')).toBe(1);
  });

  it('is followed, in the move and FAQ packs, by a message handled as one right after the answer', async () => {
    const records = await runDemoConversations(h.send, { conversations: AFTER_ACKNOWLEDGEMENT });
    expect(formatDemoTranscript(records.filter((r) => !r.ok))).toBe('');
    expect(records).toHaveLength(AFTER_ACKNOWLEDGEMENT.reduce((n, c) => n + c.turns.length, 0));
    for (const [answer, pack] of [
      [M.moveStatus(MOVED_CONNECTION), 'move-connections'],
      [M.faq, 'faq'],
    ] as const) {
      const answered = await h.say(answer);
      const unacknowledged = await h.say(UNCLASSIFIED, answered.conversationId);
      const acknowledgedFirst = await h.say(answer);
      await h.say('ok thanks', acknowledgedFirst.conversationId);
      const afterThanks = await h.say(UNCLASSIFIED, acknowledgedFirst.conversationId);
      const seen = (r: typeof afterThanks) => ({ pack, reply: r.reply, intent: r.intent, state: r.state });
      expect(seen(afterThanks)).toEqual(seen(unacknowledged));
    }
  });

  it('runs no tool, planner or reply model for it, and renders no earlier tool output', async () => {
    const first = await h.send(null, directTurn);
    h.toolServer.counters.reset();
    h.llm.clearRequests();
    const thanks = await h.say('ok thanks', first.conversationId);
    expect(thanks).toMatchObject({ state: 'ACKNOWLEDGED', reply: ORDER_ACK, outcome: 'ANSWERED' });
    expect(h.toolServer.counters.log).toEqual([]);
    expect(h.llm.requests.map((r) => r.kind).filter((k) => k === 'PLAN' || k === 'RESP_TEXT')).toEqual([]);
    const audits = (await listAudits(h.tdb.db, first.conversationId)).filter((a) => a.turnNumber === 2);
    expect(audits.map((a) => a.stage)).not.toContain('EXACT_RESPONSE_RENDERING');
    // Rule 55 moves every message after the direct answer on to ANALYZE and the acknowledgement rule 56 fires after it;
    // the pass for ACKNOWLEDGED does the same (58, 59) and, ending where it started, is the last.
    const applied = audits.filter((a) => a.stage === 'RULE_APPLIED (DialogueActStep)').map((a) => a.payload['ruleId']);
    expect(applied).toEqual([55, 56, 58, 59]);
  });
});
