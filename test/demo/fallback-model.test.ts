import { DEMO_MESSAGES, IN_PROGRESS_CONNECTION } from '../../demo/conversations';
import { DemoHarness } from './demo-harness';

const SUBMIT_ROUTE = '/loan/applications';
const CONFIRM = (amount: number, months: number) =>
  `Please confirm: customerId 1234, requestedAmount ${amount}, tenureMonths ${months}. Proceed?`;

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

  const say = (message: string, conversationId: string | null = null) => h.say(message, conversationId);

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
    const submits = h.toolServer.counters.log.filter((r) => r.route === SUBMIT_ROUTE);
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

  /**
   * An outsider's report on `convengine start`: a correction whose value was not one number ("350k", "3.5e5",
   * "35000 or maybe 40000", "1 year 6 months") was stored as the digits it contained, confirmed with "Updated."
   * and submitted. A value is now read as users write it, or not patched, and the reply says which field did not
   * change and why rather than silently confirming the old values again.
   */
  describe('loan corrections store what the user said, or nothing', () => {
    /** The seed's first message, one correction, then "yes": the correction's reply and what was submitted. */
    async function correct(correction: string) {
      h.toolServer.counters.reset();
      const first = await say(DEMO_MESSAGES.loanRequest);
      expect(first.reply).toBe(CONFIRM(35000, 24));
      const corrected = await say(correction, first.conversationId);
      const confirmed = await say('yes', first.conversationId);
      expect(confirmed.state).toBe('COMPLETED');
      const submits = h.toolServer.counters.log.filter((r) => r.route === SUBMIT_ROUTE);
      return { reply: corrected.reply, submitted: submits.map((r) => JSON.parse(r.body ?? '{}') as object) };
    }

    it.each([
      ['change amount to 350k', 350000],
      ['change amount to 3.5e5', 350000],
      ['change amount to 350,000', 350000],
    ])('%p patches requestedAmount to %p and submits it', async (correction, amount) => {
      expect(await correct(correction)).toEqual({
        reply: `Updated. ${CONFIRM(amount, 24)}`,
        submitted: [{ customerId: '1234', requestedAmount: amount, tenureMonths: 24 }],
      });
    });

    it.each([
      ['change amount to 35000 or maybe 40000', 'requestedAmount: please give it as one number'],
      ['change tenure to 1 year 6 months', 'tenureMonths: please give it as one number'],
      ['change amount to lots', 'requestedAmount: please give it as one number'],
      ['change tenure to 24.5', 'tenureMonths: please give it as a whole number'],
    ])(
      '%p patches nothing: the reply says which field did not change and what it needs, the same values are submitted',
      async (correction, why) => {
        expect(await correct(correction)).toEqual({
          reply: `I did not change ${why}. ${CONFIRM(35000, 24)}`,
          submitted: [{ customerId: '1234', requestedAmount: 35000, tenureMonths: 24 }],
        });
      }
    );
  });

  describe('off the script: asks for what is missing, reads plain numbers, calls HTTP tools (outsider report item 2)', () => {
    const ASK_ALL = 'Please tell me the customerId, requestedAmount and tenureMonths.';

    it('asks for the missing loan fields by name, and keeps a connection id out of customerId', async () => {
      const first = await say('I need a loan for my customer');
      expect(first).toMatchObject({ intent: 'LOAN_APPLICATION', state: 'ELIGIBILITY_GATE', reply: ASK_ALL });
      const id = first.conversationId;
      expect(await say('and what about CON1388?', id)).toMatchObject({ state: 'ELIGIBILITY_GATE', reply: ASK_ALL });
      const customer = await say('Customer id 1234', id);
      expect(customer.reply).toBe('Please tell me the requestedAmount and tenureMonths.');
      expect((await say('24 months', id)).reply).toBe('Please tell me the requestedAmount.');
      expect(await say('35000', id)).toMatchObject({ state: 'CONFIRMATION', reply: CONFIRM(35000, 24) });
    });

    it('asks again for a tenure given in years and months, and takes it as one number of months', async () => {
      const first = await say('I need a loan for my customer. Customer id 1234, 35000, 1 year 6 months.');
      expect(first).toMatchObject({ state: 'ELIGIBILITY_GATE', reply: 'Please tell me the tenureMonths.' });
      const id = first.conversationId;
      expect(await say('1 year 6 months', id)).toMatchObject({
        state: 'ELIGIBILITY_GATE',
        reply: 'Please tell me the tenureMonths.',
      });
      expect(await say('18 months', id)).toMatchObject({ state: 'CONFIRMATION', reply: CONFIRM(35000, 18) });
    });

    it('reads the seed sentence in capitals, amount included', async () => {
      const turn = await say(DEMO_MESSAGES.loanRequest.toUpperCase());
      expect(turn).toMatchObject({ state: 'CONFIRMATION', reply: CONFIRM(35000, 24) });
    });

    it("diagnoses an order the recordings never saw with the order pack's HTTP tool, and answers from it", async () => {
      h.toolServer.counters.reset();
      const turn = await say('Check order ORD-9999 status.');
      expect(turn).toMatchObject({ intent: 'ORDER_DIAGNOSTICS', state: 'COMPLETED' });
      expect(turn.reply).toBe('I found: status SUBMITTED, orderId ORD-9999.');
      expect(h.toolServer.counters.log.map((r) => r.route)).toEqual(['/orders/status']);
    });
  });
});
