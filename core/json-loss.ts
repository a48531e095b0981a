import { splitNumber } from 'lossless-json';
import { fieldName } from './text/unsafe-text';

/**
 * What JSON.parse changes without a word, found in the body's text: a key given twice in one object (the last one
 * wins, so `{"message":"hi","message":"hello"}` would run a turn on `hello`), and a number a double does not hold
 * (1e400 becomes null when stored, 123456789012345678901234567890 becomes 1.2345678901234568e+29).
 * `field` names where, as the text checks do (`inputParams.n`, `items[2]`).
 */
export type JsonLoss =
  { kind: 'DUPLICATE_KEY'; field: string } | { kind: 'INEXACT_NUMBER'; field: string; number: string };

/**
 * An object or array the scan is inside: where it sits in its parent, and the keys seen so far (null for an array).
 * A field's name is built only for the loss reported: nesting a million deep costs no million names.
 */
interface Container {
  parent: Container | null;
  /** Its key in the parent object, or its index in the parent array; null for the body itself. */
  at: string | number | null;
  keys: Set<string> | null;
  key: string;
  index: number;
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?/y;
const WHITESPACE = /[ \t\n\r]*/y;

/** The index after the string that opens at `start` (its closing quote is the first one not escaped). */
function stringEnd(text: string, start: number): number {
  for (let from = start + 1; ;) {
    const quote = text.indexOf('"', from);
    let backslashes = 0;
    while (text[quote - 1 - backslashes] === '\\') backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

function nextChar(text: string, from: number): string | undefined {
  WHITESPACE.lastIndex = from;
  WHITESPACE.exec(text);
  return text[WHITESPACE.lastIndex];
}

/** True when the double a JSON number reads as is the same number: 0.1 and 6.02e23 are, 1e400 and 2^53+1 are not. */
function doubleHolds(number: string): boolean {
  const double = Number(number);
  if (String(double) === number) return true;
  return Number.isFinite(double) && canonicalNumber(String(double)) === canonicalNumber(number);
}

/** Past this many levels a field's name ends in `…`: a body nested a million deep gets no million-level name. */
const NAMED_LEVELS = 32;

/** The field a container is, from the body down (a loop: a recursion would overflow on deep nesting). */
function nameOf(container: Container | null): string {
  const path: (string | number)[] = [];
  for (let c = container; c && c.at !== null; c = c.parent) path.push(c.at);
  path.reverse();
  const named = path
    .slice(0, NAMED_LEVELS)
    .reduce<string>((name, at) => (typeof at === 'number' ? `${name}[${at}]` : fieldName(name, at)), '');
  return path.length > NAMED_LEVELS ? `${named}…` : named;
}

/** The name of the value that starts now inside `top` (the key just read, or the array's current index). */
function valueName(top: Container | null): string {
  if (!top) return '';
  return top.keys ? fieldName(nameOf(top), top.key) : `${nameOf(top)}[${top.index}]`;
}

function keyOf(quoted: string): string {
  return quoted.includes('\\') ? (JSON.parse(quoted) as string) : quoted.slice(1, -1);
}

/**
 * The first loss in `text`, which must be valid JSON (the parser has read it); null when JSON.parse keeps it all.
 * `numbersOnly`: look for inexact numbers alone (a tool's answer, whose duplicate keys are the upstream's to mind).
 */
export function firstJsonLoss(text: string, numbersOnly = false): JsonLoss | null {
  let top = null as Container | null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '"') {
      const end = stringEnd(text, i);
      if (top?.keys && !numbersOnly && nextChar(text, end) === ':') {
        const key = keyOf(text.slice(i, end));
        if (top.keys.has(key)) return { kind: 'DUPLICATE_KEY', field: fieldName(nameOf(top), key) };
        top.keys.add(key);
        top.key = key;
      }
      i = end - 1;
    } else if (c === '{' || c === '[') {
      const at: string | number | null = top === null ? null : top.keys ? top.key : top.index;
      top = { parent: top, at, keys: c === '{' ? new Set() : null, key: '', index: 0 };
    } else if (c === '}' || c === ']') {
      top = top?.parent ?? null;
    } else if (c === ',') {
      if (top && !top.keys) top.index++;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      NUMBER.lastIndex = i;
      const number = NUMBER.exec(text)?.[0] ?? c;
      if (!doubleHolds(number)) return { kind: 'INEXACT_NUMBER', field: valueName(top) || 'body', number };
      i += number.length - 1;
    }
  }
  return null;
}

/** A number's value, the same however it is written (1e400, 1000…0; 1.50, 1.5): sign, digits, exponent. */
export function canonicalNumber(text: string): string {
  const { sign, digits, exponent } = splitNumber(text);
  return `${sign}${digits}e${exponent}`;
}
