import { cutText } from './cut-text';

/**
 * What a reader cannot see or would see obeyed, as users, models and tools may write it: control characters (C0, DEL,
 * C1; an escape sequence would drive the terminal), the format characters (Unicode's Cf: the bidirectional controls,
 * which reverse the rest of the line; zero-width space, non-joiner and joiner; the word joiner; U+FEFF; the tag
 * characters, which spell out text no one sees), the whole tag block U+E0000–U+E007F, assigned or not, the line
 * and paragraph separators, and the variation selectors (a run of them after one character carries any bytes at all,
 * unseen). cli/json-line.ts escapes the same in a JSON line.
 */
const HIDDEN =
  // eslint-disable-next-line no-control-regex, no-misleading-character-class -- finding them is the point
  /[\u0000-\u001f\u007f-\u009f\p{Cf}\u2028\u2029\u{e0000}-\u{e007f}\u180b-\u180f\ufe00-\ufe0f\u{e0100}-\u{e01ef}]/u;

/**
 * The exceptions, each part of how a script or an emoji is written, with nothing hidden in it (one character at most,
 * where it changes how its neighbours are drawn):
 * - a zero-width joiner between two emoji (the first may carry a skin tone and U+FE0F): it joins them into one,
 *   as in 👩‍👩‍👧, 👩🏽‍💻, 👩‍⚕️ or 🏳️‍🌈.
 * - a zero-width non-joiner or joiner between two letters of a script whose spelling uses them: Persian writes
 *   می‌خواهم with a non-joiner, Hindi and the other Brahmic scripts choose a conjunct's form with either.
 * - the tag characters of the three subdivision flags Unicode recommends (🏴 then gbeng, gbsct or gbwls, then the
 *   cancel tag: England, Scotland, Wales). Any other tag character is shown, so no text can ride along unseen.
 * - one variation selector after a character it has a form for: text or emoji presentation (U+FE0E, U+FE0F) after an
 *   emoji or a keycap's digit, an ideographic variant after a CJK ideograph, a Mongolian free variation selector after
 *   a Mongolian letter. A second selector in a row, or one anywhere else, is shown.
 * Anywhere else a joiner, tag or selector is shown as its code point.
 */
const EMOJI_JOINER = /(?<=\p{Extended_Pictographic}[\u{1f3fb}-\u{1f3ff}]?\ufe0f?)\u200d(?=\p{Extended_Pictographic})/u;
const JOINING_SCRIPTS = [
  'Arabic',
  'Syriac',
  'Nko',
  'Mongolian',
  'Devanagari',
  'Bengali',
  'Gurmukhi',
  'Gujarati',
].concat(['Oriya', 'Tamil', 'Telugu', 'Kannada', 'Malayalam', 'Sinhala']);
const SCRIPT_JOINER = new RegExp(
  JOINING_SCRIPTS.map((script) => `(?<=\\p{scx=${script}})[\u200c\u200d](?=\\p{scx=${script}})`).join('|'),
  'u'
);
const VARIANT =
  /(?<=[\p{Extended_Pictographic}#*0-9])[\ufe0e\ufe0f]|(?<=\p{Ideographic})[\ufe00-\ufe0f\u{e0100}-\u{e01ef}]|(?<=\p{scx=Mongolian})[\u180b-\u180d\u180f]/u;
/** `code` spelled in tag characters, which mirror ASCII from U+E0020. */
const inTags = (code: string): string => [...code].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');
const FLAG_TAGS = new RegExp(`\u{1f3f4}(?:${['gbeng', 'gbsct', 'gbwls'].map(inTags).join('|')})\u{e007f}`, 'u');
const KEPT = [FLAG_TAGS, EMOJI_JOINER, SCRIPT_JOINER, VARIANT].map((kept) => kept.source).join('|');
const SHOWN = new RegExp(`(${KEPT})|${HIDDEN.source}`, 'gu');

/** `⟨U+202E⟩`: a character by its code point, as the console shows it (console/lib/dom.js `visible`). */
const codePointText = (c: string): string =>
  `⟨U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}⟩`;

/**
 * `text` with every hidden character (HIDDEN, but for its exceptions) shown as its code point, never obeyed or left
 * unseen. The console shows the same (console/lib/dom.js `visible`, the browser's own copy: it loads no TypeScript).
 */
export function shownText(text: string): string {
  return text.replace(SHOWN, (c, kept: string | undefined) => kept ?? codePointText(c));
}

/**
 * Text someone wrote (a message, a reply, a tool's result or error, a reason, a name), fit for one line of a
 * terminal: line breaks and tabs are spaces, the text is cut to `maxChars` (then ends in `…`), and every hidden
 * character is shown as its code point (`⟨U+202E⟩`, shownText). Every CLI formatter prints such text through here.
 */
export function oneLineText(text: string, maxChars = Infinity): string {
  const line = text.replace(/[\t\n\r]+/g, ' ').trim();
  const cut = line.length > maxChars ? `${cutText(line, maxChars)}…` : line;
  return shownText(cut);
}
