/**
 * Text cut to a length without splitting a character. A string's length counts UTF-16 code units, and a
 * character past U+FFFF (an emoji, a rarer CJK ideograph) takes two of them, a surrogate pair:
 * `text.slice(0, n)` can end between the two and leave half of one, a lone surrogate, which is no text.
 * encodeURIComponent throws URIError on it and PostgreSQL's json refuses its escape: a message of 600 emoji
 * cut that way in the session summary failed its turn. Every cut of text a user, a model, a tool or the
 * config wrote goes through here.
 */

const isHighSurrogate = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff;

/**
 * The start of `text`, at most `maxUnits` UTF-16 code units long (the unit `length` counts): one unit
 * shorter when the cut would end on the first half of a surrogate pair. `text` itself when it is short enough.
 */
export function cutText(text: string, maxUnits: number): string {
  if (text.length <= maxUnits) return text;
  if (maxUnits <= 0) return '';
  const end = isHighSurrogate(text.charCodeAt(maxUnits - 1)) ? maxUnits - 1 : maxUnits;
  return text.slice(0, end);
}
