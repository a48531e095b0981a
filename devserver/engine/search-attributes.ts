/**
 * Search attribute registry and typed-payload decoding. SDKs send each value as a JSON payload
 * whose metadata `type` names the attribute type ("Keyword", "Int", ...); older untyped values
 * come without it and are read with the registered type.
 */
import { enums, type IndexedValueType, type Payload } from '../proto/types';

export type SearchAttributeType = 'Keyword' | 'Text' | 'Int' | 'Double' | 'Bool' | 'Datetime' | 'KeywordList';

export const SEARCH_ATTRIBUTE_TYPES: readonly SearchAttributeType[] = [
  'Keyword',
  'Text',
  'Int',
  'Double',
  'Bool',
  'Datetime',
  'KeywordList',
];

const INDEXED: Record<SearchAttributeType, IndexedValueType> = {
  Text: enums.IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
  Keyword: enums.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  Int: enums.IndexedValueType.INDEXED_VALUE_TYPE_INT,
  Double: enums.IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
  Bool: enums.IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
  Datetime: enums.IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
  KeywordList: enums.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

export function indexedValueType(type: SearchAttributeType): IndexedValueType {
  return INDEXED[type];
}

export function searchAttributeTypeOf(indexed: number): SearchAttributeType | undefined {
  return SEARCH_ATTRIBUTE_TYPES.find((t) => INDEXED[t] === indexed);
}

/** Attributes the server maintains; visibility queries can filter on them. */
export const SYSTEM_SEARCH_ATTRIBUTES: Readonly<Record<string, SearchAttributeType>> = {
  WorkflowId: 'Keyword',
  RunId: 'Keyword',
  WorkflowType: 'Keyword',
  ExecutionStatus: 'Keyword',
  TaskQueue: 'Keyword',
  StartTime: 'Datetime',
  CloseTime: 'Datetime',
  ExecutionTime: 'Datetime',
  ExecutionDuration: 'Int',
  HistoryLength: 'Int',
  HistorySizeBytes: 'Int',
  StateTransitionCount: 'Int',
  TemporalChangeVersion: 'KeywordList',
  BinaryChecksums: 'KeywordList',
  BuildIds: 'KeywordList',
  TemporalNamespaceDivision: 'Keyword',
};

/** System attributes workflows may upsert themselves (`patched()` writes TemporalChangeVersion). */
const WORKFLOW_WRITABLE_SYSTEM_ATTRIBUTES = new Set(['TemporalChangeVersion', 'BinaryChecksums', 'BuildIds']);

/** The custom attributes `temporal server start-dev` registers out of the box. */
export const DEFAULT_CUSTOM_SEARCH_ATTRIBUTES: Readonly<Record<string, SearchAttributeType>> = {
  CustomKeywordField: 'Keyword',
  CustomStringField: 'Text',
  CustomTextField: 'Text',
  CustomIntField: 'Int',
  CustomDoubleField: 'Double',
  CustomBoolField: 'Bool',
  CustomDatetimeField: 'Datetime',
};

export type SearchAttributeValue = string | number | boolean | string[] | null;

export class SearchAttributeRegistry {
  readonly custom = new Map<string, SearchAttributeType>(Object.entries(DEFAULT_CUSTOM_SEARCH_ATTRIBUTES));

  typeOf(name: string): SearchAttributeType | undefined {
    return SYSTEM_SEARCH_ATTRIBUTES[name] ?? this.custom.get(name);
  }

  isSystem(name: string): boolean {
    return SYSTEM_SEARCH_ATTRIBUTES[name] !== undefined;
  }

  /** Returns an error message for the first attribute that cannot be stored, as the real server words it. */
  validate(fields: Record<string, Payload> | undefined): string | undefined {
    for (const [name, payload] of Object.entries(fields ?? {})) {
      const type = this.custom.get(name) ?? (WORKFLOW_WRITABLE_SYSTEM_ATTRIBUTES.has(name) ? 'KeywordList' : undefined);
      if (!type) {
        return this.isSystem(name)
          ? `${name} attribute can't be set in SearchAttributes`
          : `search attribute ${name} is not defined`;
      }
      const decoded = decodeSearchAttribute(payload, type);
      if (decoded instanceof Error)
        return `invalid value for search attribute ${name} of type ${type}: ${decoded.message}`;
    }
    return undefined;
  }
}

function payloadJson(payload: Payload): unknown {
  const data = payload.data;
  if (!data || data.length === 0) return null;
  return JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8'));
}

function payloadTypeHint(payload: Payload): string | undefined {
  const raw = payload.metadata?.type;
  return raw ? Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8') : undefined;
}

function scalar(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  if (value.length === 0) return null;
  if (value.length === 1) return value[0];
  throw new Error('expected a single value, got a list');
}

function coerce(value: unknown, type: SearchAttributeType): SearchAttributeValue {
  if (value === null || value === undefined) return null;
  if (type === 'KeywordList') {
    const list = Array.isArray(value) ? value : [value];
    if (!list.every((v) => typeof v === 'string')) throw new Error('expected a list of strings');
    return list.length === 0 ? null : (list as string[]);
  }
  const single = scalar(value);
  if (single === null) return null;
  switch (type) {
    case 'Keyword':
    case 'Text':
      if (typeof single !== 'string') throw new Error('expected a string');
      return single;
    case 'Int':
      if (typeof single !== 'number' || !Number.isInteger(single)) throw new Error('expected an integer');
      return single;
    case 'Double':
      if (typeof single !== 'number') throw new Error('expected a number');
      return single;
    case 'Bool':
      if (typeof single !== 'boolean') throw new Error('expected a boolean');
      return single;
    case 'Datetime': {
      const ms = typeof single === 'string' ? Date.parse(single) : NaN;
      if (Number.isNaN(ms)) throw new Error('expected an RFC 3339 timestamp');
      return ms;
    }
  }
}

/**
 * Decodes a search attribute payload to a comparable value (Datetime → epoch ms; empty → null).
 * Returns an Error when the payload does not fit the type.
 */
export function decodeSearchAttribute(payload: Payload, registered: SearchAttributeType): SearchAttributeValue | Error {
  try {
    const hint = payloadTypeHint(payload);
    const type = hint && (SEARCH_ATTRIBUTE_TYPES as readonly string[]).includes(hint) ? hint : registered;
    if (type !== registered && !(type === 'Keyword' && registered === 'KeywordList')) {
      throw new Error(`payload type ${type} does not match`);
    }
    return coerce(payloadJson(payload), registered);
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

/** Merges upserted attributes into `target`; an empty value removes the attribute. */
export function mergeSearchAttributes(
  target: Record<string, Payload>,
  upserted: Record<string, Payload> | undefined,
  registry: SearchAttributeRegistry
): void {
  for (const [name, payload] of Object.entries(upserted ?? {})) {
    const type = registry.typeOf(name) ?? 'Keyword';
    const value = decodeSearchAttribute(payload, type);
    if (value === null) delete target[name];
    else target[name] = payload;
  }
}
