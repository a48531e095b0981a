import { cutText } from './cut-text';

/**
 * Control characters (C0, DEL, C1; an escape sequence would drive the terminal) and the bidirectional controls
 * (U+202A–U+202E overrides and embeddings, U+2066–U+2069 isolates, the marks and U+061C; an override reverses the
 * rest of the line), as users, models and tools may write them. The console shows the same set as code points
 * (console/lib/dom.js `visible`, the browser's own copy: it loads no TypeScript).
 */
// eslint-disable-next-line no-control-regex -- finding the controls is the point
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text someone wrote (a message, a reply, a tool's result or error, a reason, a name), fit for one line of a
 * terminal: line breaks and tabs are spaces, the text is cut to `maxChars` (then ends in `…`), and every control
 * is shown as its code point (`⟨U+202E⟩`), never obeyed. Every CLI formatter prints such text through here.
 */
export function oneLineText(text: string, maxChars = Infinity): string {
  const line = text.replace(/[\t\n\r]+/g, ' ').trim();
  const cut = line.length > maxChars ? `${cutText(line, maxChars)}…` : line;
  return cut.replace(CONTROLS, (c) => `⟨U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`);
}
