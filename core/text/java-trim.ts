/**
 * Java's `String.trim()`: strips the code units up to U+0020 (the ASCII controls and the space) from both ends and
 * nothing else. `String.prototype.trim` strips Unicode white space instead (a no-break space, U+2028, the ideographic
 * space) and keeps the controls, so user text "yes\u00A0" equalled an `EXACT` "yes" here and not in the Java
 * engine, and "\u0007yes" the other way round.
 */
export function javaTrim(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) <= 0x20) start++;
  while (end > start && text.charCodeAt(end - 1) <= 0x20) end--;
  return text.slice(start, end);
}
