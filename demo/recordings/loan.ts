import type { ScriptEntry } from '../../scripted-llm';
import { DEMO_MESSAGES } from '../conversations';
import { answer, callTool, field, line, literal, observed, prompt, recording, type Part } from './match';

/**
 * Example 3 (loan-confirmation pack): field extraction, the confirmation texts, planner 6202 and
 * the final text. Planner 6202 follows its system prompt as a policy over the observations it is
 * shown (the last two): rating first; fraud check only after a rating above 750; debt summary
 * only after an unflagged fraud check; submit only after a debt-to-income ratio below 0.6; then
 * answer with the application id the submit tool returned. The rating, flags, ratio and id all
 * come from the demo tool server.
 */
const PLANNER = 'You process a confirmed loan application.';
const RATING = 'loan.credit.rating.check';
const FRAUD = 'loan.credit.fraud.check';
const DEBT = 'loan.debt.credit.summary';
const SUBMIT = 'loan.application.submit';
const CUSTOMER = '1234';
const AMOUNT = 350000;
const TENURE = 24;
const APPLICATION_ID = 'LA-90311';

const application = line('Application: ', [
  `customerId ${CUSTOMER}, requestedAmount ${AMOUNT}, tenureMonths ${TENURE}.`,
]);
const observations = (has: Part[], lacks: Part[] = []) => line('Latest observations: ', has, lacks);
const planWhen = (label: string, obs: RegExp, reply: unknown) =>
  recording(`PLAN loan: ${label}`, 'PLAN', prompt([PLANNER, application, obs]), reply);

/** A credit rating above 750 (751–999), as the observation shows it. */
const GOOD_RATING = /"creditRating":(?:75[1-9]|7[6-9]\d|[89]\d\d)[,}]/;
/** A debt-to-income ratio below 0.6. */
const AFFORDABLE_DTI = /"dti":0(?:\.[0-5]\d*)?[,}]/;

function plannerPolicy(): ScriptEntry[] {
  const customer = { customerId: CUSTOMER };
  return [
    planWhen('start with the credit rating', observations([], ['"toolCode"']), callTool(RATING, customer)),
    planWhen(
      'rating above 750, check fraud',
      observations([observed(RATING), GOOD_RATING], [observed(FRAUD)]),
      callTool(FRAUD, customer)
    ),
    planWhen(
      'not flagged, check debt',
      observations([observed(FRAUD), field('flagged', false)], [observed(DEBT)]),
      callTool(DEBT, customer)
    ),
    planWhen(
      'affordable, submit',
      observations([observed(DEBT), AFFORDABLE_DTI], [observed(SUBMIT)]),
      callTool(SUBMIT, { customerId: CUSTOMER, requestedAmount: AMOUNT, tenureMonths: TENURE })
    ),
    planWhen(
      'submitted, answer',
      observations([observed(SUBMIT), field('applicationId', APPLICATION_ID)]),
      answer(`Loan application submitted. Application ID ${APPLICATION_ID}.`)
    ),
  ];
}

function confirmation(amount: number, corrected: boolean): ScriptEntry {
  const values = `customerId ${CUSTOMER}, requestedAmount ${amount}, tenureMonths ${TENURE}.`;
  const text = `Please confirm: ${values.slice(0, -1)}. Proceed?`;
  return recording(
    `RESP_TEXT loan: confirm ${amount}${corrected ? ' (updated)' : ''}`,
    'RESP_TEXT',
    prompt([
      'Ask the user to confirm the loan details',
      new RegExp(`\\n${literal(values)}\\nCorrection applied this turn: ${corrected ? 'true' : '(?!true)'}`),
    ]),
    corrected ? `Updated. ${text}` : text
  );
}

export function loanRecordings(): ScriptEntry[] {
  return [
    recording(
      'SCHEMA loan: fields of the first message',
      'SCHEMA',
      prompt(['Extract the loan application fields', line('User message: ', [DEMO_MESSAGES.loanRequest])]),
      { customerId: CUSTOMER, requestedAmount: 35000, tenureMonths: TENURE }
    ),
    confirmation(35000, false),
    confirmation(AMOUNT, true),
    ...plannerPolicy(),
    recording(
      'RESP_TEXT loan: submitted',
      'RESP_TEXT',
      prompt([
        'Tell the user the outcome',
        line('Planner answer: ', [`Application ID ${APPLICATION_ID}.`]),
        field('customerId', CUSTOMER),
        field('requestedAmount', AMOUNT),
        field('tenureMonths', TENURE),
      ]),
      `Loan application submitted for customer ${CUSTOMER}. Amount ${AMOUNT}, tenure ${TENURE} months. Application ID ${APPLICATION_ID}.`
    ),
  ];
}
