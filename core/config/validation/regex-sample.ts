/**
 * A text a REGEX rule's pattern probably matches, for the rule-cycle check to try as a message: each class by one
 * of its characters (\d as 1, [0-9] as 0), each repeated atom as many times as its least count (at least once),
 * each alternation by its first branch, anchors and flag groups dropped. Only a guess: the check runs the rules on
 * it as on any message, so a wrong guess finds nothing, never a loop that is not there. Null when the pattern uses
 * what the guess does not follow (a backreference, a lookaround, a negated class).
 */

const CLASS_ESCAPES: Readonly<Record<string, string>> = { d: '1', w: 'a', s: ' ', h: ' ', D: 'a', W: ' ', S: 'a' };
const ZERO_WIDTH = new Set(['b', 'B', 'A', 'z', 'Z', 'G']);

interface Cursor {
  pattern: string;
  at: number;
}

/** One escape at the cursor (after its backslash): the text it stands for, or null. */
function escapeText(c: Cursor): string | null {
  const letter = c.pattern[c.at] ?? '';
  c.at += 1;
  if (letter in CLASS_ESCAPES) return CLASS_ESCAPES[letter] as string;
  if (ZERO_WIDTH.has(letter)) return '';
  if (letter === 'p' || letter === 'P') {
    const close = c.pattern.indexOf('}', c.at);
    if (c.pattern[c.at] !== '{' || close < 0 || letter === 'P') return null;
    c.at = close + 1;
    return 'a';
  }
  return /[1-9kQEux0]/.test(letter) ? null : letter;
}

/** A [class] at the cursor (after its `[`): its first member, or null for a negated or nested class. */
function classText(c: Cursor): string | null {
  if (c.pattern[c.at] === '^') return null;
  const first = c.pattern[c.at] ?? '';
  const end = c.pattern.indexOf(']', c.at + 1);
  if (end < 0 || c.pattern.slice(c.at, end).includes('[')) return null;
  c.at += 1;
  const text = first === '\\' ? escapeText(c) : first;
  c.at = end + 1;
  return text;
}

/** A repetition after an atom: how many times to write it (its least count, at least once); 1 for none. */
function repeatCount(c: Cursor): number {
  const ch = c.pattern[c.at];
  let count = 1;
  if (ch === '*' || ch === '+' || ch === '?') c.at += 1;
  else if (ch === '{') {
    const m = /^\{(\d+)(?:,\d*)?\}/.exec(c.pattern.slice(c.at));
    if (!m) return 1;
    count = Math.max(1, Math.min(Number(m[1]), 50));
    c.at += m[0].length;
  } else return 1;
  if (c.pattern[c.at] === '?' || c.pattern[c.at] === '+') c.at += 1;
  return count;
}

/** A sequence up to `)` or the end: the first branch's text; the cursor left after the sequence's other branches. */
function sequence(c: Cursor): string | null {
  let out = '';
  while (c.at < c.pattern.length && c.pattern[c.at] !== ')' && c.pattern[c.at] !== '|') {
    const atom = atomText(c);
    if (atom === null) return null;
    out += atom.repeat(repeatCount(c));
  }
  let depth = 0;
  for (; c.at < c.pattern.length; c.at++) {
    const ch = c.pattern[c.at];
    if (ch === '\\') c.at += 1;
    else if (ch === '(') depth += 1;
    else if (ch === ')' && depth-- === 0) break;
  }
  return out;
}

function atomText(c: Cursor): string | null {
  const ch = c.pattern[c.at] as string;
  c.at += 1;
  if (ch === '\\') return escapeText(c);
  if (ch === '[') return classText(c);
  if (ch === '^' || ch === '$') return '';
  if (ch === '.') return 'a';
  if (ch !== '(') return ch;
  const opener = /^\?(?:[a-zA-Z-]*:|<[a-zA-Z]\w*>|P<\w+>|[a-zA-Z-]*\))?/.exec(c.pattern.slice(c.at))?.[0] ?? '';
  if (opener.startsWith('?') && opener.length === 1) return null;
  c.at += opener.length;
  if (opener.endsWith(')')) return '';
  const inner = sequence(c);
  c.at += 1;
  return inner;
}

export function regexSample(pattern: string): string | null {
  const c: Cursor = { pattern, at: 0 };
  const text = sequence(c);
  return text === null || c.at < pattern.length ? null : text;
}
