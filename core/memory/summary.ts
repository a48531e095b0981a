import { assistantText } from '../prompt/vars';
import type { Session } from '../session';
import { cutText } from '../text/cut-text';

const flat = (text: string | null | undefined): string =>
  (text ?? '')
    .replace(/[\r\n\t]+/g, ' ')
    .replace(/\s{2,}/g, ' ')
    .trim();

/**
 * The short session summary MemoryStep keeps in context (§1.2 #25): intent, state, user text,
 * the last few turns and the reply, capped in length.
 */
export function sessionSummary(session: Session, recentTurns: number, maxChars: number): string {
  let out = `intent=${flat(session.intent)}, state=${flat(session.state)}, user=${flat(session.userText)}`;
  const history = [...session.history].sort((a, b) => a.turnNumber - b.turnNumber);
  if (history.length > 0 && recentTurns > 0) {
    const recent = history
      .slice(-recentTurns)
      .map((t) => `{u=${flat(t.userInput)},a=${flat(assistantText(t.assistantOutput))}}`);
    out += `, recentTurns=[${recent.join('')}]`;
  }
  if (session.payload?.type === 'TEXT') out += `, response=${session.payload.value}`;
  return cutText(out, maxChars);
}
