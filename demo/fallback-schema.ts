import { unitWord } from '../core/correction/user-number';
import { isJsonObject, type Json, type JsonObject } from '../core/json';
import { idTokens, spaced, words, type FallbackTurn } from './fallback-turn';

/**
 * The keyless demo model's SCHEMA answers: each field by simple patterns, case-insensitively (ISO dates for
 * date fields, sums of money for amounts, the value after or before the field's words), and a number field
 * left empty takes the one number of the message no other field took.
 */

/** A calendar date as ISO 8601 writes it (2026-03-01). */
const ISO_DATE = /\b\d{4}-\d{2}-\d{2}\b/;
/** An amount of money: a number with a currency code, word or sign before or after it (1200 EUR, $35.50, 40 euros). */
const MONEY =
  /(?:[$€£]\s*(\d[\d,]*(?:\.\d+)?))|(?:(\d[\d,]*(?:\.\d+)?)\s*(?:EUR|USD|GBP|CHF|euros?|dollars?|pounds?|[$€£]))/i;
/** A number that is the whole token (not part of an id, a date, "350k" or "3.5e5"). */
const PLAIN_NUMBER = /^-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?$/;
/**
 * A number read after or before a field's words: it ends its token ("350k" is not 350) and ends in a digit, so
 * "1234, amount 350k" gives the amount nothing rather than the customer's 1234.
 */
const KEYED_NUMBER = String.raw`(-?\d(?:[\d,]*\d)?(?:\.\d+)?)(?![.,]?\w)`;
const KEYED_TEXT = String.raw`([A-Za-z0-9][\w.@/-]*)`;
/** An id field's value has a digit: "a loan for my customer for 35000" names no customer "for". */
const KEYED_ID = String.raw`((?=[\w.@/-]*\d)[A-Za-z0-9][\w.@/-]*)`;

function fieldType(spec: Json | undefined): string {
  const type = isJsonObject(spec) ? spec['type'] : undefined;
  if (Array.isArray(type)) return String(type.find((t) => t !== 'null') ?? 'string');
  return typeof type === 'string' ? type : 'string';
}

const isNumeric = (spec: Json | undefined) => ['number', 'integer'].includes(fieldType(spec));
const isIdField = (name: string) => /\b(id|number|code|ref)\b/i.test(spaced(name));

/** The field's name, title, description and format: what tells a date or an amount from other fields. */
function fieldText(name: string, spec: Json | undefined): string {
  const about = isJsonObject(spec) ? [spec['title'], spec['description'], spec['format']] : [];
  return [spaced(name), ...about].filter(Boolean).join(' ');
}

const isDateField = (about: string, numeric: boolean) => !numeric && /\bdate\b|YYYY-MM-DD/i.test(about);
const isMoneyField = (about: string, numeric: boolean) =>
  numeric && /\b(cost|amount|price|fee|total|sum|eur|usd|gbp|chf)\b/i.test(about);

function moneyIn(text: string): number | null {
  const money = MONEY.exec(text);
  return money ? Number((money[1] ?? money[2] ?? '').replace(/,/g, '')) : null;
}

/** The units a duration is counted in; "1 year 6 months" is one duration of two parts. */
const DURATION_UNITS = new Set(['year', 'month', 'week', 'day']);
const DURATION_PART = String.raw`(-?\d(?:[\d,]*\d)?(?:\.\d+)?)\s*(years?|months?|weeks?|days?)\b`;
const DURATION = new RegExp(String.raw`(?<![\w.])${DURATION_PART}(?:\s*,?\s*(?:and\s+)?${DURATION_PART})*`, 'gi');
const DURATION_UNIT = /(years?|months?|weeks?|days?)\b/gi;
/** What a duration a field does not count in is read as: no number, and no field word to key on. */
const NOT_A_NUMBER = '(duration)';

/** The duration units a field counts in by its name, title or description (tenureMonths, "Loan tenure in months"). */
const durationUnitsOf = (about: string): Set<string> =>
  new Set(
    words(about)
      .map(unitWord)
      .filter((w) => DURATION_UNITS.has(w))
  );

/**
 * The text a number field reads, each duration replaced by a placeholder unless it is one quantity of a unit the
 * field counts in ("24 months" for tenureMonths). "1 year 6 months" or "2 years" is no number of months as users
 * write one (core/correction/user-number.ts reads one number, in the field's own unit): the field is left empty,
 * so the reply asks for it again, rather than taking the 1, 6 or 2 in it (or converting, which a correction of
 * the same field does not do either).
 */
function withoutForeignDurations(text: string, about: string): string {
  const ownUnits = durationUnitsOf(about);
  return text.replace(DURATION, (duration) => {
    const units = duration.match(DURATION_UNIT) ?? [];
    return units.length === 1 && ownUnits.has(unitWord(units[0] ?? '')) ? duration : NOT_A_NUMBER;
  });
}

/** An id no field word names is taken only when its letters abbreviate one (ORD-7017 → order, not CON1388 → customer). */
function abbreviatesField(id: string, fieldWords: string[]): boolean {
  const letters = /^[A-Za-z]+/.exec(id)?.[0].toLowerCase() ?? '';
  return letters !== '' && fieldWords.some((w) => w.startsWith(letters));
}

/**
 * `customerId 1234`, `amount: 35000`, `24 months`: the value after (or before) the field's words. An id field not
 * named by its words takes an id-like token whose letters abbreviate them (`ORD-7017` for `order_id`).
 */
function keyedValue(text: string, name: string, numeric: boolean): Json {
  const keyWords = words(spaced(name));
  const idField = !numeric && isIdField(name);
  const value = numeric ? KEYED_NUMBER : idField ? KEYED_ID : KEYED_TEXT;
  for (const word of keyWords.slice().reverse()) {
    const after = new RegExp(`\\b${word}\\w*\\b(?:\\s+(?:is|of|id|number|to))?\\s*[:=]?\\s*${value}`, 'i').exec(text);
    const before = numeric ? new RegExp(`${value}\\s*${word}`, 'i').exec(text) : null;
    const raw = after?.[1] ?? before?.[1];
    if (raw !== undefined) return numeric ? Number(raw.replace(/,/g, '')) : raw;
  }
  return idField ? (idTokens(text).find((id) => abbreviatesField(id, keyWords)) ?? null) : null;
}

/**
 * A date field takes the message's ISO date whatever words come before it (`damage on 2026-03-01`), and an
 * amount field not named by its words takes a sum of money (`about 1200 EUR`). A number field reads the text
 * without the durations it does not count in.
 */
function extractField(text: string, name: string, spec: Json | undefined): Json {
  const about = fieldText(name, spec);
  const numeric = isNumeric(spec);
  if (isDateField(about, numeric)) return ISO_DATE.exec(text)?.[0] ?? keyedValue(text, name, numeric);
  const source = numeric ? withoutForeignDurations(text, about) : text;
  return keyedValue(source, name, numeric) ?? (isMoneyField(about, numeric) ? moneyIn(source) : null);
}

/** The message's numbers that stand alone, in order ("1234," and "35,000." included). */
function plainNumbers(text: string): number[] {
  return text
    .split(/\s+/)
    .map((t) => t.replace(/^\(+|[.,;:!?)]+$/g, ''))
    .filter((t) => PLAIN_NUMBER.test(t))
    .map((t) => Number(t.replace(/,/g, '')));
}

/**
 * "Customer id 1234, 35000, 24 months": the one number field still empty (and still missing, when the engine
 * says which are) takes the one number no other field took. Two such fields or two such numbers: no guess. A
 * duration is no such number, and a field counted in months is not empty for it when the message gives a duration.
 */
function unclaimedNumber(turn: FallbackTurn, properties: JsonObject, found: JsonObject): JsonObject {
  const missing = (name: string) => turn.missingFields.length === 0 || turn.missingFields.includes(name);
  // A field counted in a duration unit was answered by the message's duration, even one it could not take.
  const answeredByDuration = (name: string, spec: Json | undefined) =>
    durationUnitsOf(fieldText(name, spec)).size > 0 && turn.userInput.search(DURATION) >= 0;
  const open = Object.entries(properties).filter(
    ([name, spec]) => found[name] === null && isNumeric(spec) && missing(name) && !answeredByDuration(name, spec)
  );
  const [only] = open;
  if (open.length !== 1 || !only) return {};
  const [name, spec] = only;
  const left = plainNumbers(withoutForeignDurations(turn.userInput, fieldText(name, spec)));
  for (const value of Object.values(found)) {
    const at = value === null ? -1 : left.indexOf(Number(value));
    if (at >= 0) left.splice(at, 1);
  }
  if (left.length !== 1) return {};
  const value = left[0] as number;
  return fieldType(spec) === 'integer' && !Number.isInteger(value) ? {} : { [name]: value };
}

export function answerSchema(turn: FallbackTurn): JsonObject {
  const properties = turn.schema && isJsonObject(turn.schema['properties']) ? turn.schema['properties'] : {};
  const found: JsonObject = {};
  for (const [name, spec] of Object.entries(properties)) found[name] = extractField(turn.userInput, name, spec);
  return { ...found, ...unclaimedNumber(turn, properties, found) };
}
