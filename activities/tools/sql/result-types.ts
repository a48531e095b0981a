import { types, type CustomTypesConfig } from 'pg';

/** pg-types' parser of text[] (oid 1009): an array of dates or intervals keeps each element as the database wrote it. */
const textArray = (types.getTypeParser as (oid: number) => (value: string) => string[])(1009);
const asText = (value: string): string => value;

/**
 * Column types a SQL tool result gives as the database's text (ISO, in the session's pinned settings) rather than
 * pg-types' values: a date or a timestamp without time zone became a JS Date at midnight or that wall time in the
 * worker's own time zone, so the same row read a day apart on two workers (TZ=Pacific/Chatham), and an interval an
 * object with a field per unit. timestamptz stays an instant (an ISO string in UTC, executor's plainRow).
 */
const AS_TEXT: ReadonlyMap<number, (value: string) => unknown> = new Map<number, (value: string) => unknown>([
  [1082, asText], // date
  [1114, asText], // timestamp (without time zone)
  [1083, asText], // time
  [1266, asText], // timetz
  [1186, asText], // interval
  [1182, textArray], // date[]
  [1115, textArray], // timestamp[]
  [1183, textArray], // time[]
  [1270, textArray], // timetz[]
  [1187, textArray], // interval[]
]);

/** The per-query type parsers of a SQL tool's query (pg's `types`): AS_TEXT, else pg-types' own. */
export const TOOL_RESULT_TYPES: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    (format === 'binary' ? undefined : AS_TEXT.get(oid)) ??
    types.getTypeParser(oid, format)) as CustomTypesConfig['getTypeParser'],
};
