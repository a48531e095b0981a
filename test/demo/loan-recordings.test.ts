import { loanRecordings } from '../../demo/recordings/loan';
import { replyText, Script } from '../../scripted-llm';

/**
 * The keyless demo's loan planner (planner 6202's system prompt, as a policy over the prompt it is shown): every
 * branch, for an application the recordings never saw. The ratings, flags and ratios are what the demo tool server
 * returns for its special customers.
 */
const PLANNER = 'You process a confirmed loan application. Call the tools strictly in this order';
const application = 'Application: customerId 4242, requestedAmount 12000, tenureMonths 18.';

function plan(observations: string): unknown {
  const script = new Script();
  script.push(loanRecordings());
  const prompt = `${PLANNER}\n${application}\nAvailable tools: []\nLatest observations: ${observations}\nFull context: {}`;
  const match = script.take('PLAN', prompt);
  if (!match) throw new Error('no recording answered');
  return JSON.parse(replyText(match.entry.reply, prompt));
}

const seen = (toolCode: string, result: Record<string, unknown>) =>
  JSON.stringify([{ toolCode, status: 'SUCCESS', result }]);

describe('demo loan planner recordings', () => {
  it.each([
    ['no observation yet', '[]', { action: 'CALL_TOOL', tool_code: 'loan.credit.rating.check' }],
    [
      'a rating above 750',
      seen('loan.credit.rating.check', { creditRating: 782 }),
      { action: 'CALL_TOOL', tool_code: 'loan.credit.fraud.check', args: { customerId: '4242' } },
    ],
    [
      'a rating of 750 or less',
      seen('loan.credit.rating.check', { creditRating: 640 }),
      { action: 'ANSWER', answer: 'The application is rejected for a low credit rating (640).' },
    ],
    [
      'a rating check whose arguments were refused',
      JSON.stringify([{ toolCode: 'loan.credit.rating.check', status: 'ERROR', error: 'args rejected' }]),
      { action: 'ANSWER', answer: 'I could not check the credit rating, so the application was not submitted.' },
    ],
    [
      'a flagged fraud check',
      seen('loan.credit.fraud.check', { flagged: true }),
      { action: 'ANSWER', answer: 'The application is rejected after the fraud check.' },
    ],
    [
      'an unflagged fraud check',
      seen('loan.credit.fraud.check', { flagged: false }),
      { action: 'CALL_TOOL', tool_code: 'loan.debt.credit.summary' },
    ],
    [
      'a debt-to-income ratio above 0.65',
      seen('loan.debt.credit.summary', { dti: 0.72 }),
      { action: 'ANSWER', answer: 'The application needs manual review: the debt-to-income ratio is 0.72.' },
    ],
    [
      'an affordable ratio',
      seen('loan.debt.credit.summary', { dti: 0.31 }),
      {
        action: 'CALL_TOOL',
        tool_code: 'loan.application.submit',
        args: { customerId: '4242', requestedAmount: 12000, tenureMonths: 18 },
      },
    ],
    [
      'a submitted application',
      seen('loan.application.submit', { applicationId: 'LA-1', status: 'SUBMITTED' }),
      { action: 'ANSWER', answer: 'Loan application submitted. Application ID LA-1.' },
    ],
  ])('after %s', (_case, observations, expected) => {
    expect(plan(observations)).toMatchObject(expected);
  });
});
