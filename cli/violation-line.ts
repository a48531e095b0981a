import { formatViolation, type ConfigViolation } from '../core/config/types';
import { shownText } from '../core/text/one-line-text';

/**
 * A config violation as the CLI prints it (`table[id]: reason`, one line): the id and the reason quote config rows (a
 * tool code, an intent, a response text), which whoever wrote them may have filled with an escape sequence or a line
 * break; their controls are shown as code points (shownText), never obeyed or taken for another line.
 */
export function violationLine(v: ConfigViolation): string {
  return shownText(formatViolation(v));
}
