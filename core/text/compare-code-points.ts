/**
 * Orders two strings by their Unicode code points, the same on every host. `localeCompare` and Intl.Collator
 * order by the host's locale (an Estonian host puts ZAP before TRANSFER, a Danish one AAB after ZAP), so a tie
 * broken with them could go one way on one worker and the other way on the next; core/ must decide alike on all.
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i += 1) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) < codePointRank(y) ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/**
 * A UTF-16 code unit's place in code point order at the first unit two strings differ in: a surrogate stands for a
 * code point above U+FFFF, so it ranks after U+E000..U+FFFF, which plain `<` on strings puts after it.
 */
function codePointRank(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit < 0xe000 ? unit + 0x2000 : unit - 0x800;
}
