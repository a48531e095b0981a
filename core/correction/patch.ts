import type { Json } from '../json';
import type { FieldDetail } from '../schema/completeness';

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

interface FieldAlias {
  field: string;
  lookup: string;
}

function aliasesOf(details: Record<string, FieldDetail>): FieldAlias[] {
  return Object.entries(details).map(([field, detail]) => {
    const fromKey = normalizeFieldKey(field);
    const fromDescription = detail.description ? normalizeFieldKey(detail.description) : '';
    return { field, lookup: fromDescription.length > fromKey.length ? fromDescription : fromKey };
  });
}

function longest(aliases: FieldAlias[]): FieldAlias | undefined {
  return aliases.reduce<FieldAlias | undefined>(
    (best, a) => (!best || a.lookup.length > best.lookup.length ? a : best),
    undefined
  );
}

function resolveField(requested: string, aliases: FieldAlias[]): string | undefined {
  const wanted = normalizeFieldKey(requested);
  if (wanted === '') return undefined;
  return longest(aliases.filter((a) => a.lookup.includes(wanted) || wanted.includes(a.lookup)))?.field;
}

function typeOf(detail: FieldDetail | undefined): string | null {
  const type = detail?.type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type))
    return (type.find((t) => typeof t === 'string' && t !== 'null') as string | undefined) ?? null;
  return null;
}

/** Coerces the patch value by the field's schema type; undefined when it does not fit. */
export function coercePatchValue(raw: string, detail: FieldDetail | undefined): Json | undefined {
  const text = raw
    .trim()
    .replace(/^[=:,\s]+/, '')
    .replace(/[.?!]+$/, '')
    .trim();
  const type = typeOf(detail);
  if (type === 'integer') {
    const digits = text.replace(/[^0-9-]/g, '');
    return /^-?\d+$/.test(digits) ? Number.parseInt(digits, 10) : undefined;
  }
  if (type === 'number') {
    const digits = text.replace(/[^0-9.-]/g, '');
    const n = Number(digits);
    return digits !== '' && Number.isFinite(n) ? n : undefined;
  }
  if (type === 'boolean') {
    const t = text.toLowerCase();
    if (t === 'true' || t === 'yes') return true;
    if (t === 'false' || t === 'no') return false;
    return undefined;
  }
  return text;
}

export interface FieldPatch {
  field: string;
  value: Json;
}

/**
 * A deterministic single-field edit (§5.3): "change|set|update|make [the] <field> to|as <value>"
 * anywhere in the message (the Java engine needs it to be the whole message, so the seed's
 * "Oh wait, change amount to 350000." never patched), else the longest field alias found in the
 * text with the text after it as the value. Null when no field or value can be read.
 */
export function parseFieldPatch(userText: string, details: Record<string, FieldDetail>): FieldPatch | null {
  const text = userText.trim();
  if (text === '') return null;
  const aliases = aliasesOf(details);
  const explicit = EXPLICIT_SET.exec(text);
  const fromExplicit = explicit ? patchOf(explicit[1] ?? '', explicit[2] ?? '', aliases, details) : null;
  if (fromExplicit) return fromExplicit;
  const normalizedText = normalizeFieldKey(text);
  const best = longest(aliases.filter((a) => a.lookup !== '' && normalizedText.includes(a.lookup)));
  const at = best ? text.toLowerCase().indexOf(best.lookup) : -1;
  return best && at >= 0 ? patchOf(best.field, text.slice(at + best.lookup.length), aliases, details) : null;
}

function patchOf(
  requestedField: string,
  requestedValue: string,
  aliases: FieldAlias[],
  details: Record<string, FieldDetail>
): FieldPatch | null {
  if (requestedValue.trim() === '') return null;
  const field = resolveField(requestedField, aliases);
  if (!field) return null;
  const value = coercePatchValue(requestedValue, details[field]);
  return value === undefined ? null : { field, value };
}
