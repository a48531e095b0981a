import type { ScriptEntry } from '../../scripted-llm';
import { DEMO_MESSAGES, IN_PROGRESS_CONNECTION, MOVED_CONNECTION } from '../conversations';
import { endsWith, recording } from './match';

/**
 * Dialogue-act answers (call kind DA) for the demo messages the regex pass is not sure about.
 * The engine asks in two shapes: without history ("User message:") and, once the conversation
 * has history, in query-rewrite mode ("Latest user message:", standaloneQuery required). Both are
 * recorded, so a message gets the same act whether it opens a conversation or continues one.
 */
interface ActAnswer {
  message: string;
  act: string;
  confidence: number;
  /** The standalone rewrite; default: the message itself (it already stands alone). */
  standalone?: string;
}

const M = DEMO_MESSAGES;

const ACTS: readonly ActAnswer[] = [
  { message: M.faq, act: 'QUESTION', confidence: 0.92 },
  { message: M.moveStatus(MOVED_CONNECTION), act: 'NEW_REQUEST', confidence: 0.9 },
  { message: M.moveStatus(IN_PROGRESS_CONNECTION), act: 'NEW_REQUEST', confidence: 0.9 },
  { message: M.loanRequest, act: 'NEW_REQUEST', confidence: 0.93 },
  { message: M.loanEdit, act: 'EDIT', confidence: 0.9, standalone: 'Change the requested amount to 350000.' },
  { message: M.loanConfirm, act: 'AFFIRM', confidence: 0.95, standalone: 'Proceed with the loan application.' },
  { message: M.zapperTransitions, act: 'NEW_REQUEST', confidence: 0.9 },
  { message: M.zapperWhyFailed, act: 'QUESTION', confidence: 0.94 },
  { message: M.zapperBillbank, act: 'NEW_REQUEST', confidence: 0.9 },
  { message: M.zapperDelete, act: 'NEW_REQUEST', confidence: 0.88 },
  { message: M.orderDiagnosis, act: 'QUESTION', confidence: 0.91 },
  { message: M.orderDirect, act: 'NEW_REQUEST', confidence: 0.9 },
  {
    message: M.moveFollowUp(IN_PROGRESS_CONNECTION),
    act: 'QUESTION',
    confidence: 0.9,
    standalone: `${M.moveStatus(IN_PROGRESS_CONNECTION)}?`,
  },
  { message: M.zapperDeleteFollowUp, act: 'NEW_REQUEST', confidence: 0.88 },
  { message: M.loanEditAfterSubmit, act: 'EDIT', confidence: 0.9, standalone: 'Change the requested amount to 5000.' },
];

export function dialogueActRecordings(): ScriptEntry[] {
  return ACTS.flatMap(({ message, act, confidence, standalone }) => [
    recording(`DA ${act}: ${message}`, 'DA', endsWith('User message:\n', message), {
      dialogueAct: act,
      confidence,
    }),
    recording(`DA rewrite ${act}: ${message}`, 'DA', endsWith('Latest user message:\n', message), {
      dialogueAct: act,
      confidence,
      standaloneQuery: standalone ?? message,
    }),
  ]);
}
