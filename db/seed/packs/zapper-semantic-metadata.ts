import type { ConfigRows } from '../../../core/config/types';
import type {
  SemanticConceptRow,
  SemanticEntityRow,
  SemanticJoinPathRow,
  SemanticMappingRow,
  SemanticQueryClassRow,
  SemanticSynonymRow,
} from '../../../core/config/semantic-rows';
import type { JsonObject } from '../../../core/json';

/** ce_semantic_* rows describing the zapper disconnect tables for db.semantic.interpret/query. Ids 701+. */
const STATUS_CODES: JsonObject = {
  '100': 'NEW',
  '810': 'SENT_TO_DOWNSTREAM',
  '120': 'DISCONNECT_FAILED',
  '300': 'COMPLETED',
};

const concepts: [string, string, string][] = [
  ['DISCONNECT_REQUEST', 'ENTITY', 'A request to disconnect a customer service (zp_disco_request).'],
  ['REQUEST_STATUS', 'FIELD', `Numeric status code of a disconnect request: ${JSON.stringify(STATUS_CODES)}.`],
  [
    'STATUS_TRANSITION',
    'EVENT',
    'A change of request status recorded in zp_disco_request_log (from_status → to_status at changed_at).',
  ],
  [
    'DOWNSTREAM_CHECK',
    'ENTITY',
    'Result of checking a disconnect with a downstream system (zp_order_downstream_check).',
  ],
  ['FAILURE_REASON', 'FIELD', 'Why a downstream check failed.'],
  ['BILLBANK_RECORD', 'ENTITY', 'Billing record of a disconnect in billbank (zp_billbank_record).'],
  ['DISCONNECT_ID', 'FIELD', 'Identifier of a disconnect such as ZPDISC7003.'],
  ['ACCOUNT', 'FIELD', 'Customer account id such as UPSA100.'],
  ['BALANCE', 'FIELD', 'Remaining billbank balance of a disconnect.'],
];

const semanticConcepts: SemanticConceptRow[] = concepts.map(([conceptKey, conceptKind, description], i) => ({
  conceptId: 701 + i,
  conceptKey,
  conceptKind,
  description,
  tags: ['zapper', 'disconnect'],
  enabled: true,
}));

const synonyms: [string, string, number][] = [
  ['disconnect request', 'DISCONNECT_REQUEST', 0.98],
  ['disco request', 'DISCONNECT_REQUEST', 0.95],
  ['request', 'DISCONNECT_REQUEST', 0.7],
  ['status went from', 'STATUS_TRANSITION', 0.95],
  ['moved from', 'STATUS_TRANSITION', 0.9],
  ['status', 'REQUEST_STATUS', 0.8],
  ['downstream', 'DOWNSTREAM_CHECK', 0.9],
  ['fail', 'FAILURE_REASON', 0.85],
  ['billbank', 'BILLBANK_RECORD', 0.98],
  ['bill bank', 'BILLBANK_RECORD', 0.95],
  ['disconnect id', 'DISCONNECT_ID', 0.95],
  ['account', 'ACCOUNT', 0.9],
  ['balance', 'BALANCE', 0.9],
];

const semanticSynonyms: SemanticSynonymRow[] = synonyms.map(([synonymText, conceptKey, confidenceScore], i) => ({
  synonymId: 701 + i,
  synonymText,
  conceptKey,
  domainKey: 'ZAPPER',
  confidenceScore,
  enabled: true,
}));

const field = (column: string, type: string, extra: JsonObject = {}): JsonObject => ({ column, type, ...extra });

const semanticEntities: SemanticEntityRow[] = [
  {
    entityId: 701,
    entityKey: 'DISCONNECT_REQUEST',
    primaryTable: 'zp_disco_request',
    relatedTables: ['zp_disco_request_log', 'zp_order_downstream_check', 'zp_billbank_record'],
    synonyms: ['disconnect request', 'disco request'],
    fieldsJson: {
      requestId: field('request_id', 'text'),
      disconnectId: field('disconnect_id', 'text'),
      accountId: field('account_id', 'text'),
      statusCode: field('status_code', 'integer', { values: STATUS_CODES }),
      requestedAt: field('requested_at', 'timestamptz'),
    },
    description: 'Disconnect requests with their current status.',
    enabled: true,
  },
  {
    entityId: 702,
    entityKey: 'REQUEST_STATUS_LOG',
    primaryTable: 'zp_disco_request_log',
    relatedTables: ['zp_disco_request'],
    synonyms: ['status history', 'transition log'],
    fieldsJson: {
      requestId: field('request_id', 'text'),
      fromStatus: field('from_status', 'integer', { values: STATUS_CODES }),
      toStatus: field('to_status', 'integer', { values: STATUS_CODES }),
      changedAt: field('changed_at', 'timestamptz'),
    },
    description: 'Every status change of a disconnect request.',
    enabled: true,
  },
  {
    entityId: 703,
    entityKey: 'DOWNSTREAM_CHECK',
    primaryTable: 'zp_order_downstream_check',
    relatedTables: ['zp_disco_request'],
    synonyms: ['downstream check'],
    fieldsJson: {
      requestId: field('request_id', 'text'),
      downstreamSystem: field('downstream_system', 'text'),
      downstreamDisconnectOrderId: field('downstream_disconnect_order_id', 'text', { nullable: true }),
      checkStatus: field('check_status', 'text', { values: ['PASSED', 'FAILED'] }),
      failureReason: field('failure_reason', 'text'),
      checkedAt: field('checked_at', 'timestamptz'),
    },
    description:
      'Downstream verification of a disconnect; a null downstream order id means the order was never acknowledged.',
    enabled: true,
  },
  {
    entityId: 704,
    entityKey: 'BILLBANK_RECORD',
    primaryTable: 'zp_billbank_record',
    relatedTables: ['zp_disco_request'],
    synonyms: ['billbank record', 'billing record'],
    fieldsJson: {
      disconnectId: field('disconnect_id', 'text'),
      accountId: field('account_id', 'text'),
      recordStatus: field('record_status', 'text', { values: ['OPEN', 'CLOSED'] }),
      balance: field('balance', 'numeric(12,2)'),
      updatedAt: field('updated_at', 'timestamptz'),
    },
    description: 'Billing state of a disconnect.',
    enabled: true,
  },
];

const queryClass = (
  queryClassId: number,
  queryClassKey: string,
  baseTableName: string,
  description: string,
  allowedFilterFields: string[],
  defaultSelectFields: string[]
): SemanticQueryClassRow => ({
  queryClassId,
  queryClassKey,
  baseTableName,
  description,
  astSkeletonJson: null,
  allowedFilterFields,
  defaultSelectFields,
  defaultSortFields: null,
  enabled: true,
});

const semanticQueryClasses: SemanticQueryClassRow[] = [
  queryClass(
    701,
    'LIST_REQUESTS',
    'zp_disco_request',
    'List disconnect requests by account or status.',
    ['accountId', 'statusCode', 'requestId'],
    ['request_id', 'account_id', 'status_code']
  ),
  queryClass(
    702,
    'TRANSITION_REQUESTS',
    'zp_disco_request',
    'Requests with a status transition (EXISTS over zp_disco_request_log) in a time range.',
    ['fromStatus', 'toStatus', 'changedAt'],
    ['request_id', 'account_id', 'status_code']
  ),
  queryClass(
    703,
    'REQUEST_FAILURE_DIAGNOSIS',
    'zp_order_downstream_check',
    'Why a request failed downstream.',
    ['requestId'],
    ['request_id', 'downstream_disconnect_order_id', 'check_status', 'failure_reason']
  ),
  queryClass(
    704,
    'BILLBANK_LOOKUP',
    'zp_billbank_record',
    'Billbank records of a disconnect or account.',
    ['disconnectId', 'accountId'],
    ['disconnect_id', 'record_status', 'balance']
  ),
];

const mappings: [string, string, string, string, string, string, string][] = [
  ['REQUEST_STATUS', 'DISCONNECT_REQUEST', 'statusCode', 'zp_disco_request', 'status_code', 'EQ', 'LIST_REQUESTS'],
  ['ACCOUNT', 'DISCONNECT_REQUEST', 'accountId', 'zp_disco_request', 'account_id', 'EQ', 'LIST_REQUESTS'],
  [
    'STATUS_TRANSITION',
    'REQUEST_STATUS_LOG',
    'fromStatus',
    'zp_disco_request_log',
    'from_status',
    'EQ',
    'TRANSITION_REQUESTS',
  ],
  [
    'STATUS_TRANSITION',
    'REQUEST_STATUS_LOG',
    'toStatus',
    'zp_disco_request_log',
    'to_status',
    'EQ',
    'TRANSITION_REQUESTS',
  ],
  [
    'STATUS_TRANSITION',
    'REQUEST_STATUS_LOG',
    'changedAt',
    'zp_disco_request_log',
    'changed_at',
    'BETWEEN',
    'TRANSITION_REQUESTS',
  ],
  [
    'DISCONNECT_REQUEST',
    'DOWNSTREAM_CHECK',
    'requestId',
    'zp_order_downstream_check',
    'request_id',
    'EQ',
    'REQUEST_FAILURE_DIAGNOSIS',
  ],
  [
    'FAILURE_REASON',
    'DOWNSTREAM_CHECK',
    'failureReason',
    'zp_order_downstream_check',
    'failure_reason',
    'EQ',
    'REQUEST_FAILURE_DIAGNOSIS',
  ],
  ['DISCONNECT_ID', 'BILLBANK_RECORD', 'disconnectId', 'zp_billbank_record', 'disconnect_id', 'EQ', 'BILLBANK_LOOKUP'],
  ['BALANCE', 'BILLBANK_RECORD', 'balance', 'zp_billbank_record', 'balance', 'EQ', 'BILLBANK_LOOKUP'],
];

const semanticMappings: SemanticMappingRow[] = mappings.map(
  ([conceptKey, entityKey, fieldKey, mappedTable, mappedColumn, operatorType, queryClassKey], i) => ({
    mappingId: 701 + i,
    conceptKey,
    entityKey,
    fieldKey,
    mappedTable,
    mappedColumn,
    operatorType,
    valueMapJson: fieldKey.endsWith('Status') || fieldKey === 'statusCode' ? STATUS_CODES : null,
    queryClassKey,
    priority: 100,
    enabled: true,
  })
);

const joins: [string, string, string][] = [
  ['DISCONNECT_REQUEST', 'REQUEST_STATUS_LOG', 'zp_disco_request.request_id = zp_disco_request_log.request_id'],
  ['DISCONNECT_REQUEST', 'DOWNSTREAM_CHECK', 'zp_disco_request.request_id = zp_order_downstream_check.request_id'],
  ['DISCONNECT_REQUEST', 'BILLBANK_RECORD', 'zp_disco_request.disconnect_id = zp_billbank_record.disconnect_id'],
];

const semanticJoinPaths: SemanticJoinPathRow[] = joins.map(([leftEntityKey, rightEntityKey, joinExpression], i) => ({
  joinPathId: 701 + i,
  leftEntityKey,
  rightEntityKey,
  joinExpression,
  priority: 100,
  enabled: true,
}));

export const zapperSemanticRows: Partial<ConfigRows> = {
  semanticConcepts,
  semanticSynonyms,
  semanticEntities,
  semanticQueryClasses,
  semanticMappings,
  semanticJoinPaths,
};
