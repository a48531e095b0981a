import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { TURN_SEARCH_ATTRIBUTES } from '../workflows/search-attributes';

const IndexedValueType = temporal.api.enums.v1.IndexedValueType;
type IndexedValueType = temporal.api.enums.v1.IndexedValueType;

/** Search-attribute type names as `temporal operator search-attribute create --type` spells them. */
const TYPES: Record<string, IndexedValueType> = {
  Text: IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
  Keyword: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  Int: IndexedValueType.INDEXED_VALUE_TYPE_INT,
  Double: IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
  Bool: IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
  Datetime: IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
  KeywordList: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

/** The turn attributes the namespace lacks; a name registered with another type is an error. */
export async function missingTurnSearchAttributes(
  connection: Pick<Connection, 'operatorService'>,
  namespace: string
): Promise<Record<string, IndexedValueType>> {
  const listed = await connection.operatorService.listSearchAttributes({ namespace });
  const existing = { ...listed.systemAttributes, ...listed.customAttributes };
  const missing: Record<string, IndexedValueType> = {};
  for (const [name, typeName] of Object.entries(TURN_SEARCH_ATTRIBUTES)) {
    const wanted = TYPES[typeName] as IndexedValueType;
    const has = existing[name];
    if (has === undefined || has === null) missing[name] = wanted;
    else if (has !== wanted) {
      throw new Error(
        `search attribute ${name} is registered as ${IndexedValueType[has]}, the turn workflow needs ${typeName}`
      );
    }
  }
  return missing;
}
