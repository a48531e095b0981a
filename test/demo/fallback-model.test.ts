import { DEMO_MESSAGES, IN_PROGRESS_CONNECTION } from '../../demo/conversations';
import { DemoHarness } from './demo-harness';

/**
 * Issue 14 item 9: with no API key, `convengine start` answers any input. Off-script phrases go to
 * the deterministic fallback model over the loaded config; none of them may fail a turn.
 */
describe('keyless demo: input outside the recordings', () => {
  let h: DemoHarness;
  beforeAll(async () => {
    h = await DemoHarness.start({ fallback: true });
  }, 120_000);
  afterAll(async () => h?.stop());

  const say = (message: string, conversationId: string | null = null) =>
    h.send(conversationId, { message, expect: { reply: '', intent: '', state: '' } });

  it('answers a status question the recordings never saw from the move tool', async () => {
    const turn = await say(`what is the status of connection ${IN_PROGRESS_CONNECTION}`);
    expect(turn.intent).toBe('MOVE_CONNECTIONS');
    expect(turn.reply).toMatch(/IN_PROGRESS/);
  });

  it('answers gibberish with the UNKNOWN guidance, which lists phrases the demo understands', async () => {
    const turn = await say('qwerty asdf zxcv');
    expect(turn.reply).toMatch(/You can say, for example/);
    expect(turn.reply).toContain(DEMO_MESSAGES.orderDirect);
  });

  it("skips the loan edit turn: confirming straight away submits the first message's application", async () => {
    h.toolServer.counters.reset();
    const first = await say(DEMO_MESSAGES.loanRequest);
    expect(first.state).toBe('CONFIRMATION');
    const confirmed = await say(DEMO_MESSAGES.loanConfirm, first.conversationId);
    expect(confirmed).toMatchObject({
      intent: 'LOAN_APPLICATION',
      state: 'COMPLETED',
      reply: 'Loan application submitted for customer 1234. Amount 35000, tenure 24 months. Application ID LA-90311.',
    });
    const submits = h.toolServer.counters.log.filter((r) => r.route === '/loan/applications');
    expect(submits.map((r) => JSON.parse(r.body ?? '{}'))).toEqual([
      { customerId: '1234', requestedAmount: 35000, tenureMonths: 24 },
    ]);
  });

  it("processes a loan the recordings never saw, by the planner's policy, and confirms what it was told", async () => {
    h.toolServer.counters.reset();
    const first = await say('I need a loan. Customer id 5555, amount 10000, 36 months.');
    expect(first).toMatchObject({
      state: 'CONFIRMATION',
      reply: 'Please confirm: customerId 5555, requestedAmount 10000, tenureMonths 36. Proceed?',
    });
    const confirmed = await say('yes', first.conversationId);
    expect(confirmed.reply).toBe(
      'Loan application submitted for customer 5555. Amount 10000, tenure 36 months. Application ID LA-90311.'
    );
    const routes = h.toolServer.counters.log.map((r) => r.route);
    expect(routes).toEqual(['/loan/credit-rating', '/loan/fraud-check', '/loan/debt-summary', '/loan/applications']);
  });

  it.each([
    'hello there, what can you do?',
    'my order ORD-9999 looks stuck',
    'I want a loan of 5000 for 12 months for customer C-77',
    'delete everything',
    '???',
    'change amount to 1',
    'Looks good, go ahead.',
    '🙂'.repeat(20),
  ])('never fails a turn: %p', async (message) => {
    const first = await say(message);
    expect(first.reply.trim()).not.toBe('');
    const second = await say('and what about CON1388?', first.conversationId);
    expect(second.reply.trim()).not.toBe('');
  });
});
