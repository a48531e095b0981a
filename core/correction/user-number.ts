import { trimEndOf } from '../text/trim-end';

/**
 * One number as a user writes it in a correction ("350,000", "1,250.50", "-3", "3.5e5", "350k",
 * "1.2 million", "36 months" for a month field), or undefined when the text is not exactly that.
 * Stripping everything but digits turned "350k" into 350, "3.5e5" into 3.55 and "35000 or maybe
 * 40000" into 3500040000 (a patch the user never asked for), so nothing is guessed: a second
 * number, a word that is neither filler nor the field's own unit, or a malformed number refuses.
 */

/** Words that do not change what the number means: politeness and the edit's own framing. */
const FILLER = new Set(['please', 'pls', 'thanks', 'thank', 'you', 'instead', 'then', 'now', 'actually', 'ok', 'okay']);

/**
 * Magnitudes: "k" (attached or not) and the spelled-out words. A bare "m" is refused, not read as a
 * million: in a correction it as often means months ("tenure to 18m"), minutes or metres.
 */
const THOUSAND = 3;
const MAGNITUDE = new Map([
  ['k', THOUSAND],
  ['thousand', THOUSAND],
  ['million', 6],
  ['billion', 9],
]);

/** Currency signs and words, as the code a field's description uses ("Repair cost, in EUR"). */
const CURRENCY = new Map([
  ['$', 'usd'],
  ['€', 'eur'],
  ['£', 'gbp'],
  ['dollar', 'usd'],
  ['euro', 'eur'],
  ['pound', 'gbp'],
]);

/**
 * Digits with optional thousands separators (groups of exactly three), an optional fraction, an
 * optional exponent; a sign in front. "35,00" (a decimal comma?) and "1.250,50" do not match.
 */
const NUMBER = /^([+-]?)([$€£]?)((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+)(?:e([+-]?\d{1,4})|(k))?([$€£]?)$/i;

/** A word as it is compared: lower case, singular ("months" → "month"), a currency as its code. */
export function unitWord(word: string): string {
  const lower = word.toLowerCase();
  const singular = lower.length > 3 && lower.endsWith('s') ? lower.slice(0, -1) : lower;
  return CURRENCY.get(singular) ?? singular;
}

interface ParsedNumber {
  /** Decimal digits and point, no separators. */
  mantissa: string;
  exponent: number;
  /** An exponent or a magnitude is already written: no magnitude word may follow. */
  scaled: boolean;
  sign: string;
  /** A currency sign written next to the number, as its code. */
  currency: string | null;
}

function parseToken(token: string): ParsedNumber | null {
  const m = NUMBER.exec(token);
  if (!m) return null;
  const [, sign = '', before = '', digits = '', exponent, k, after = ''] = m;
  if (before !== '' && after !== '') return null;
  const symbol = before || after;
  return {
    mantissa: digits.replace(/,/g, ''),
    exponent: exponent !== undefined ? Number(exponent) : k ? THOUSAND : 0,
    scaled: exponent !== undefined || k !== undefined,
    sign,
    currency: symbol === '' ? null : unitWord(symbol),
  };
}

/** The value of mantissa × 10^exponent, rounded once (Number parses the decimal text exactly). */
function valueOf(n: ParsedNumber): number | undefined {
  const value = Number(`${n.sign}${n.mantissa}e${n.exponent}`);
  if (!Number.isFinite(value)) return undefined;
  // 1e-400 underflows to 0: refused rather than stored as a different number.
  if (value === 0 && /[1-9]/.test(n.mantissa)) return undefined;
  return value === 0 ? 0 : value;
}

/**
 * `units`: the words the field itself is named or described by (unitWord form), which the value may
 * repeat: "36 months" for tenureMonths, "1200 EUR" for a cost "in EUR". Any other word refuses.
 */
export function parseUserNumber(text: string, units: ReadonlySet<string>): number | undefined {
  const tokens = text
    .split(/\s+/)
    .map((t) => trimEndOf(t, ',;'))
    .filter((t) => t !== '');
  let found: ParsedNumber | null = null;
  let previous: ParsedNumber | null = null;
  for (const token of tokens) {
    const number = parseToken(token);
    if (number) {
      if (found || (number.currency !== null && !units.has(number.currency))) return undefined;
      found = previous = number;
      continue;
    }
    const magnitude = MAGNITUDE.get(token.toLowerCase());
    if (magnitude !== undefined && previous && !previous.scaled) {
      previous.exponent += magnitude;
      previous.scaled = true;
    } else if (!FILLER.has(token.toLowerCase()) && !units.has(unitWord(token))) return undefined;
    previous = null;
  }
  return found ? valueOf(found) : undefined;
}
