import type { ScriptEntry } from '../../scripted-llm';
import { DEMO_MESSAGES } from '../conversations';
import { answer, callTool, endsWith, line, observed, prompt, recording } from './match';

/**
 * Example 3 (loan-confirmation pack): field extraction, the confirmation texts, planner 6202 and
 * the final text. Planner 6202 follows its system prompt as a policy over the observations it is
 * shown (the last two): rating first; fraud check only after a rating above 750; debt summary
 * only after an unflagged fraud check; submit only after a debt-to-income ratio of at most 0.65;
 * then answer with the application id the submit tool returned. Each stage reads the application
 * and the observation from the prompt, as the model would, so any application the user confirms
 * (not only the demo's) is processed; the ratings, flags, ratios and ids come from the demo tool
 * server.
 */
const PLANNER = 'You process a confirmed loan application.';
const RATING = 'loan.credit.rating.check';
const FRAUD = 'loan.credit.fraud.check';
const DEBT = 'loan.debt.credit.summary';
const SUBMIT = 'loan.application.submit';
const MAX_DTI = 0.65;

interface Application {
  customerId: string;
  requestedAmount: number;
  tenureMonths: number;
}

/** `customerId 1234, requestedAmount 350000, tenureMonths 24.` as the planner and confirmation prompts render it. */
const APPLICATION = /customerId ([^,\n]+), requestedAmount (-?[\d.]+), tenureMonths (-?\d+)\./;

function applicationIn(text: string): Application | null {
  const found = APPLICATION.exec(text);
  if (!found) return null;
  return { customerId: found[1] ?? '', requestedAmount: Number(found[2]), tenureMonths: Number(found[3]) };
}

/** The planner's "Latest observations:" line. */
function observationsIn(text: string): string {
  return /\nLatest observations: ([^\n]*)/.exec(text)?.[1] ?? '';
}

/** A number field of the latest observations (`"creditRating":782`), or null. */
function observedNumber(text: string, name: string): number | null {
  const found = new RegExp(`"${name}":(-?[\\d.]+)`).exec(observationsIn(text));
  return found ? Number(found[1]) : null;
}

const stage = (label: string, has: string[], lacks: string[], reply: (text: string) => unknown) =>
  recording(
    `PLAN loan: ${label}`,
    'PLAN',
    prompt([PLANNER, line('Application: ', [APPLICATION]), line('Latest observations: ', has, lacks)]),
    reply
  );

const unavailable = (what: string) => answer(`I could not ${what}, so the application was not submitted.`);

function plannerPolicy(): ScriptEntry[] {
  const customer = (text: string) => ({ customerId: applicationIn(text)?.customerId ?? '' });
  return [
    stage('start with the credit rating', [], ['"toolCode"'], (text) => callTool(RATING, customer(text))),
    stage('after the rating', [observed(RATING)], [observed(FRAUD)], (text) => {
      const rating = observedNumber(text, 'creditRating');
      if (rating === null) return unavailable('check the credit rating');
      if (rating <= 750) return answer(`The application is rejected for a low credit rating (${rating}).`);
      return callTool(FRAUD, customer(text));
    }),
    stage('after the fraud check', [observed(FRAUD)], [observed(DEBT)], (text) => {
      const flags = /"flagged":(true|false)/.exec(observationsIn(text))?.[1];
      if (flags === undefined) return unavailable('run the fraud check');
      if (flags === 'true') return answer('The application is rejected after the fraud check.');
      return callTool(DEBT, customer(text));
    }),
    stage('after the debt summary', [observed(DEBT)], [observed(SUBMIT)], (text) => {
      const dti = observedNumber(text, 'dti');
      if (dti === null) return unavailable('read the debt summary');
      if (dti > MAX_DTI) return answer(`The application needs manual review: the debt-to-income ratio is ${dti}.`);
      return callTool(SUBMIT, { ...applicationIn(text) });
    }),
    stage('submitted, answer', [observed(SUBMIT)], [], (text) => {
      const id = /"applicationId":"([^"]+)"/.exec(observationsIn(text))?.[1];
      return id ? answer(`Loan application submitted. Application ID ${id}.`) : unavailable('submit the application');
    }),
  ];
}

/** What template 125 says a refused field needs, by the refusal's reason; one number unless named here. */
const REFUSAL_NEEDS: Readonly<Record<string, string>> = {
  NOT_A_WHOLE_NUMBER: 'as a whole number',
  OUT_OF_RANGE: 'as a smaller number',
};

/** "I did not change tenureMonths: please give it as one number. " when the prompt shows a refused correction. */
function refusalOpening(text: string): string {
  const refused = /\nCorrection refused this turn: (\w+) (\w+)/.exec(text);
  if (!refused) return '';
  const [, field, reason = ''] = refused;
  return `I did not change ${field}: please give it ${REFUSAL_NEEDS[reason] ?? 'as one number'}. `;
}

/**
 * The confirmation sentence template 125 asks for, of the values it shows; "Updated. " after a correction, the
 * field and what it needs after a refused one.
 */
function confirmation(text: string): string {
  const values = applicationIn(text);
  const corrected = /\nCorrection applied this turn: true/.test(text);
  const sentence = values
    ? `Please confirm: customerId ${values.customerId}, requestedAmount ${values.requestedAmount}, tenureMonths ${values.tenureMonths}. Proceed?`
    : 'Please confirm the customer id, the requested amount and the tenure in months. Proceed?';
  return corrected ? `Updated. ${sentence}` : `${refusalOpening(text)}${sentence}`;
}

/** A field of the context JSON template 126 shows. */
function contextField(text: string, name: string): string | undefined {
  return new RegExp(`"${name}":"?([^",}]*)`).exec(text)?.[1];
}

/** Template 126: the submitted sentence when the planner answer has an application id, else the planner answer. */
function outcome(text: string): string {
  const plannerAnswer = /\nPlanner answer: ([^\n]*)/.exec(`\n${text}`)?.[1]?.trim() ?? '';
  const id = /Application ID (\S+?)\.?$/.exec(plannerAnswer)?.[1];
  if (!id) return plannerAnswer || 'The loan application was not submitted.';
  const [customer, amount, months] = ['customerId', 'requestedAmount', 'tenureMonths'].map((f) =>
    contextField(text, f)
  );
  return `Loan application submitted for customer ${customer}. Amount ${amount}, tenure ${months} months. Application ID ${id}.`;
}

export function loanRecordings(): ScriptEntry[] {
  return [
    // An edit after the application was processed: the model keeps the intent and, as its prompt says, the state.
    recording(
      'INTENT loan: an edit after processing stays in the application',
      'INTENT',
      endsWith('User message:\n', DEMO_MESSAGES.loanEditAfterSubmit),
      {
        intent: 'LOAN_APPLICATION',
        state: 'COMPLETED',
        confidence: 0.9,
        intentScores: [{ intent: 'LOAN_APPLICATION', confidence: 0.9 }],
      }
    ),
    recording(
      'SCHEMA loan: fields of the first message',
      'SCHEMA',
      prompt(['Extract the loan application fields', line('User message: ', [DEMO_MESSAGES.loanRequest])]),
      { customerId: '1234', requestedAmount: 35000, tenureMonths: 24 }
    ),
    recording(
      'RESP_TEXT loan: confirm',
      'RESP_TEXT',
      prompt(['Ask the user to confirm the loan details']),
      confirmation
    ),
    ...plannerPolicy(),
    recording('RESP_TEXT loan: outcome', 'RESP_TEXT', prompt(['Tell the user the outcome']), outcome),
  ];
}
