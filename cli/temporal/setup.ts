import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { msToTs } from '@temporalio/common/lib/time';
import { TURN_SEARCH_ATTRIBUTES } from '../../workflows/search-attributes';

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

const GRPC_NOT_FOUND = 5;
const GRPC_ALREADY_EXISTS = 6;
const GRPC_UNAVAILABLE = 14;

export interface SetupOptions {
  namespace: string;
  /** Retention of closed runs when the namespace is created (existing namespaces are left alone). */
  retentionDays?: number;
  /** How long to keep trying while a new namespace propagates to the frontend's cache. */
  timeoutMs?: number;
  log?: (line: string) => void;
}

function grpcCode(err: unknown): number | undefined {
  return (err as { code?: number }).code;
}

async function ensureNamespace(connection: Connection, options: SetupOptions): Promise<void> {
  try {
    await connection.workflowService.describeNamespace({ namespace: options.namespace });
    return;
  } catch (err) {
    if (grpcCode(err) !== GRPC_NOT_FOUND) throw err;
  }
  const days = options.retentionDays ?? 30;
  try {
    await connection.workflowService.registerNamespace({
      namespace: options.namespace,
      workflowExecutionRetentionPeriod: msToTs(`${days} days`),
    });
    options.log?.(`created namespace ${options.namespace} (retention ${days} days)`);
  } catch (err) {
    if (grpcCode(err) !== GRPC_ALREADY_EXISTS) throw err;
  }
}

/** The turn attributes the namespace lacks; a name registered with another type is an error. */
export async function missingTurnSearchAttributes(
  connection: Connection,
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

/**
 * Creates the namespace when it is missing and registers every turn search attribute it lacks:
 * what docker-compose's `temporal-bootstrap` job and a new cluster need, from the one list in
 * workflows/search-attributes.ts. Idempotent.
 */
export async function setupTemporalNamespace(connection: Connection, options: SetupOptions): Promise<string[]> {
  await ensureNamespace(connection, options);
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    try {
      const missing = await missingTurnSearchAttributes(connection, options.namespace);
      if (Object.keys(missing).length === 0) return [];
      await connection.operatorService.addSearchAttributes({ namespace: options.namespace, searchAttributes: missing });
      options.log?.(`registered search attributes ${Object.keys(missing).join(', ')} on ${options.namespace}`);
      return Object.keys(missing);
    } catch (err) {
      // A namespace created a moment ago is unknown to the frontend until its cache refreshes.
      const retryable = [GRPC_NOT_FOUND, GRPC_ALREADY_EXISTS, GRPC_UNAVAILABLE].includes(grpcCode(err) ?? 0);
      if (!retryable || Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}
