import type { Json } from '../json';
import type { FieldDetail } from '../schema/completeness';
import { trimEndOf } from '../text/trim-end';
import { parseUserNumber, unitWord } from './user-number';

// Searched, not anchored: "Oh wait, change amount to 350000." (seed 001) patches like the bare form.
const EXPLICIT_SET = /\b(?:change|set|update|make)\s+(?:the\s+|my\s+)?(.+?)\s+(?:to|as)\s+(.+)$/i;
const RETRY = /^\s*(retry|try again|retry please|please retry|again)\s*[.!?]*\s*$/i;

export function isRetryRequest(text: string): boolean {
  return RETRY.test(text);
}

/** `requestedAmount` / "Requested amount" → `requestedamount`. */
export function normalizeFieldKey(raw: string): string {
  return raw
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[^A-Za-z0-9]+/g, ' ')
    .trim()
    .toLowerCase()
    .replace(/ /g, '');
}

/** A name a user may call a field by; `rank` orders how strongly it names the field (key beats description). */
interface FieldAlias {
  field: string;
  /** Compact form (`estimatedcost`) for comparing what the user named. */
  lookup: string;
  /** Finds the alias in free text, its words separated by spaces, `_` or `-` (or nothing). */
  pattern: RegExp;
  rank: number;
}

const Rank = { key: 3, title: 2, description: 1 } as const;

function words(raw: string): string[] {
  return raw
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== '')
    .map((w) => w.toLowerCase());
}

function alias(field: string, raw: string, rank: number): FieldAlias | null {
  const parts = words(raw);
  if (parts.length === 0) return null;
  // Words are plain [a-z0-9]+, so they need no escaping inside the pattern.
  return { field, lookup: parts.join(''), pattern: new RegExp(`\\b${parts.join('[\\s_-]*')}\\b`, 'i'), rank };
}

/** The field's key (`estimated_cost`, `estimatedCost` → "estimated cost"), its title and its description. */
function aliasesOf(details: Record<string, FieldDetail>): FieldAlias[] {
  return Object.entries(details).flatMap(([field, detail]) =>
    [
      alias(field, field, Rank.key),
      detail.title ? alias(field, detail.title, Rank.title) : null,
      detail.description ? alias(field, detail.description, Rank.description) : null,
    ].filter((a): a is FieldAlias => a !== null)
  );
}

/** The strongest alias: exact name first, then rank, then the longest (most specific) name. */
function best(aliases: FieldAlias[], exact: (a: FieldAlias) => boolean): FieldAlias | undefined {
  const score = (a: FieldAlias) => (exact(a) ? 1000 : 0) + a.rank * 100 + Math.min(a.lookup.length, 99);
  return aliases.reduce<FieldAlias | undefined>((top, a) => (!top || score(a) > score(top) ? a : top), undefined);
}

/** The field the user named: equal to an alias, or one containing the other ("cost" → estimated_cost). */
function resolveField(requested: string, aliases: FieldAlias[]): string | undefined {
  const wanted = normalizeFieldKey(requested);
  if (wanted === '') return undefined;
  const candidates = aliases.filter((a) => a.lookup.includes(wanted) || (a.rank > 1 && wanted.includes(a.lookup)));
  return best(candidates, (a) => a.lookup === wanted)?.field;
}

function typeOf(detail: FieldDetail | undefined): string | null {
  const type = detail?.type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type))
    return (type.find((t) => typeof t === 'string' && t !== 'null') as string | undefined) ?? null;
  return null;
}

/** The words a field is named and described by, which its value may repeat as a unit ("36 months"). */
function unitWordsOf(field: string, detail: FieldDetail | undefined): Set<string> {
  const named = [field, detail?.title ?? '', detail?.description ?? ''].flatMap(words);
  return new Set(named.filter((w) => /^[a-z]+$/.test(w)).map(unitWord));
}

/**
 * Why a correction's value was not stored (CORRECTION_STEP_CORRECTION_PATCH_REJECTED, input param
 * `correction_rejected_reason`): not one number as users write one ("35000 or maybe 40000", "1 year 6
 * months", "lots"), a fraction or a number past 2^53 for an integer field, or neither yes nor no.
 */
export const PatchRefusal = {
  notOneNumber: 'NOT_ONE_NUMBER',
  notWholeNumber: 'NOT_A_WHOLE_NUMBER',
  outOfRange: 'OUT_OF_RANGE',
  notYesOrNo: 'NOT_YES_OR_NO',
} as const;
export type PatchRefusalReason = (typeof PatchRefusal)[keyof typeof PatchRefusal];

type Coercion = { value: Json } | { refused: PatchRefusalReason };

/** The value as written, without the edit's framing ("to", "= ", a closing full stop). */
function valueText(raw: string): string {
  const framed = raw
    .trim()
    .replace(/^[=:,\s]+/, '')
    .replace(/^(?:is|to|as|now)\s+/i, '');
  return trimEndOf(framed, '.?!').trim();
}

/**
 * Coerces the patch value by the field's schema type (§5.3: no patch when it does not fit). A number
 * is one number as users write it (core/correction/user-number.ts), an integer also whole.
 */
function coerce(text: string, detail: FieldDetail | undefined, field: string): Coercion {
  const type = typeOf(detail);
  if (type === 'integer' || type === 'number') {
    const n = parseUserNumber(text, unitWordsOf(field, detail));
    if (n === undefined) return { refused: PatchRefusal.notOneNumber };
    if (type === 'integer' && !Number.isInteger(n)) return { refused: PatchRefusal.notWholeNumber };
    return type === 'integer' && !Number.isSafeInteger(n) ? { refused: PatchRefusal.outOfRange } : { value: n };
  }
  if (type === 'boolean') {
    const t = text.toLowerCase();
    if (t === 'true' || t === 'yes') return { value: true };
    if (t === 'false' || t === 'no') return { value: false };
    return { refused: PatchRefusal.notYesOrNo };
  }
  return { value: text };
}

/** The patch value the field's schema type takes, or undefined when it does not fit. */
export function coercePatchValue(raw: string, detail: FieldDetail | undefined, field = ''): Json | undefined {
  const coerced = coerce(valueText(raw), detail, field);
  return 'value' in coerced ? coerced.value : undefined;
}

export interface FieldPatch {
  field: string;
  value: Json;
}

/** A correction of a field the user named whose value the field's type does not take: nothing is patched. */
export interface RefusedPatch {
  field: string;
  /** The value as the user wrote it (the edit's framing taken off), uncut. */
  text: string;
  reason: PatchRefusalReason;
}

/** What an edit message says: a patch, a refused one (a field named, its value unfit), or nothing readable. */
export type FieldPatchReading = { patch: FieldPatch } | { refused: RefusedPatch } | null;

/**
 * A deterministic single-field edit (§5.3): "change|set|update|make [the] <field> to|as <value>"
 * anywhere in the message (the Java engine needs it to be the whole message, so the seed's
 * "Oh wait, change amount to 350000." never patched), else the longest field alias found in the
 * text with the text after it as the value. A refusal is returned only when neither reading patches;
 * null when no field or value can be read.
 */
export function readFieldPatch(userText: string, details: Record<string, FieldDetail>): FieldPatchReading {
  const text = userText.trim();
  if (text === '') return null;
  const aliases = aliasesOf(details);
  const explicit = EXPLICIT_SET.exec(text);
  const fromExplicit = explicit ? patchOf(explicit[1] ?? '', explicit[2] ?? '', aliases, details) : null;
  if (fromExplicit && 'patch' in fromExplicit) return fromExplicit;
  const found = aliases.flatMap((a) => {
    const match = a.pattern.exec(text);
    return match ? [{ alias: a, end: match.index + match[0].length }] : [];
  });
  const chosen = best(
    found.map((f) => f.alias),
    () => false
  );
  const end = found.find((f) => f.alias === chosen)?.end;
  const fromAlias = chosen && end !== undefined ? patchOf(chosen.lookup, text.slice(end), aliases, details) : null;
  return fromAlias && 'patch' in fromAlias ? fromAlias : (fromExplicit ?? fromAlias);
}

/** The patch an edit message makes, or null (nothing readable, or a refused value). */
export function parseFieldPatch(userText: string, details: Record<string, FieldDetail>): FieldPatch | null {
  const reading = readFieldPatch(userText, details);
  return reading && 'patch' in reading ? reading.patch : null;
}

function patchOf(
  requestedField: string,
  requestedValue: string,
  aliases: FieldAlias[],
  details: Record<string, FieldDetail>
): FieldPatchReading {
  if (requestedValue.trim() === '') return null;
  const field = resolveField(requestedField, aliases);
  if (!field) return null;
  const text = valueText(requestedValue);
  const coerced = coerce(text, details[field], field);
  return 'value' in coerced
    ? { patch: { field, value: coerced.value } }
    : { refused: { field, text, reason: coerced.refused } };
}
