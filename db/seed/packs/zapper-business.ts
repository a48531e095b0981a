import type { BusinessTable, BusinessValue } from '../types';

/**
 * Business data of Example 4 (zapper disconnects). Status codes: 100 NEW, 810 SENT_TO_DOWNSTREAM,
 * 120 DISCONNECT_FAILED, 300 COMPLETED. Facts the demo relies on: exactly 7 requests moved from
 * 810 to 120 on 2026-03-12 (ZPR1001–ZPR1007; all times are mid-day UTC so every US time zone sees
 * the same date); ZPR1003's downstream check has no downstream disconnect order id; disconnect
 * ZPDISC7003 has exactly one billbank record, CLOSED with balance 0.00; account UPSA100 exists.
 */
type Row = Record<string, BusinessValue>;

const ACCOUNTS = [
  'UPSA100',
  'UPSA101',
  'UPSA102',
  'UPSA100',
  'UPSA103',
  'UPSA104',
  'UPSA105',
  'UPSA106',
  'UPSA107',
  'UPSA108',
  'UPSA101',
];
const CURRENT_STATUS = [120, 120, 120, 120, 120, 120, 120, 120, 300, 810, 120];

const requests: Row[] = ACCOUNTS.map((accountId, i) => ({
  request_id: `ZPR${1001 + i}`,
  disconnect_id: `ZPDISC${7001 + i}`,
  account_id: accountId,
  status_code: CURRENT_STATUS[i] ?? 100,
  requested_at: `2026-03-${String(9 + Math.min(i, 2)).padStart(2, '0')}T08:00:00Z`,
}));

/** [request, from, to, changed_at] */
const TRANSITIONS: [string, number | null, number, string][] = [
  ...[1001, 1002, 1003, 1004, 1005, 1006, 1007].flatMap((n, i): [string, number | null, number, string][] => [
    [`ZPR${n}`, 100, 810, `2026-03-11T1${i}:00:00Z`],
    [`ZPR${n}`, 810, 120, `2026-03-12T1${i}:15:00Z`],
  ]),
  ['ZPR1008', 100, 810, '2026-03-10T12:00:00Z'],
  ['ZPR1008', 810, 120, '2026-03-11T12:30:00Z'],
  ['ZPR1009', 100, 810, '2026-03-11T13:00:00Z'],
  ['ZPR1009', 810, 300, '2026-03-12T13:45:00Z'],
  ['ZPR1010', 100, 810, '2026-03-12T14:00:00Z'],
  ['ZPR1011', 100, 810, '2026-03-12T15:00:00Z'],
  ['ZPR1011', 810, 120, '2026-03-13T11:00:00Z'],
];

const FAILURE_REASONS: Record<string, string> = {
  ZPR1001: 'Downstream switch still reports the service as active.',
  ZPR1002: 'Downstream order rejected: account has an open repair ticket.',
  ZPR1003: 'Downstream disconnect order id is missing: order management never acknowledged the disconnect.',
  ZPR1004: 'Downstream order timed out after 3 retries.',
  ZPR1005: 'Downstream order rejected: equipment not returned.',
  ZPR1006: 'Downstream switch still reports the service as active.',
  ZPR1007: 'Downstream order rejected: pending port-out request.',
};

const downstreamChecks: Row[] = [
  ...Object.entries(FAILURE_REASONS).map(([requestId, reason], i) => ({
    check_id: 9001 + i,
    request_id: requestId,
    downstream_system: 'ORDER_MGMT',
    downstream_disconnect_order_id: requestId === 'ZPR1003' ? null : `DDO-${5501 + i}`,
    check_status: 'FAILED',
    failure_reason: reason,
    checked_at: `2026-03-12T1${i}:20:00Z`,
  })),
  {
    check_id: 9008,
    request_id: 'ZPR1009',
    downstream_system: 'ORDER_MGMT',
    downstream_disconnect_order_id: 'DDO-5509',
    check_status: 'PASSED',
    failure_reason: null,
    checked_at: '2026-03-12T13:40:00Z',
  },
];

const billbankRecords: Row[] = [
  {
    record_id: 8001,
    disconnect_id: 'ZPDISC7001',
    account_id: 'UPSA100',
    record_status: 'OPEN',
    balance: '45.10',
    updated_at: '2026-03-12T16:00:00Z',
  },
  {
    record_id: 8002,
    disconnect_id: 'ZPDISC7003',
    account_id: 'UPSA102',
    record_status: 'CLOSED',
    balance: '0.00',
    updated_at: '2026-03-12T16:05:00Z',
  },
  {
    record_id: 8003,
    disconnect_id: 'ZPDISC7009',
    account_id: 'UPSA107',
    record_status: 'CLOSED',
    balance: '0.00',
    updated_at: '2026-03-12T16:10:00Z',
  },
  {
    record_id: 8004,
    disconnect_id: 'ZPDISC7002',
    account_id: 'UPSA101',
    record_status: 'OPEN',
    balance: '112.75',
    updated_at: '2026-03-12T16:15:00Z',
  },
];

export const zapperBusinessTables: BusinessTable[] = [
  {
    name: 'zp_disco_request',
    columns: {
      request_id: 'text NOT NULL',
      disconnect_id: 'text NOT NULL',
      account_id: 'text NOT NULL',
      status_code: 'integer NOT NULL',
      requested_at: 'timestamptz NOT NULL',
    },
    primaryKey: ['request_id'],
    rows: requests,
  },
  {
    name: 'zp_disco_request_log',
    columns: {
      log_id: 'integer NOT NULL',
      request_id: 'text NOT NULL',
      from_status: 'integer',
      to_status: 'integer NOT NULL',
      changed_at: 'timestamptz NOT NULL',
    },
    primaryKey: ['log_id'],
    rows: TRANSITIONS.map(([requestId, from, to, at], i) => ({
      log_id: 6001 + i,
      request_id: requestId,
      from_status: from,
      to_status: to,
      changed_at: at,
    })),
  },
  {
    name: 'zp_order_downstream_check',
    columns: {
      check_id: 'integer NOT NULL',
      request_id: 'text NOT NULL',
      downstream_system: 'text NOT NULL',
      downstream_disconnect_order_id: 'text',
      check_status: 'text NOT NULL',
      failure_reason: 'text',
      checked_at: 'timestamptz NOT NULL',
    },
    primaryKey: ['check_id'],
    rows: downstreamChecks,
  },
  {
    name: 'zp_billbank_record',
    columns: {
      record_id: 'integer NOT NULL',
      disconnect_id: 'text NOT NULL',
      account_id: 'text NOT NULL',
      record_status: 'text NOT NULL',
      balance: 'numeric(12, 2) NOT NULL',
      updated_at: 'timestamptz NOT NULL',
    },
    primaryKey: ['record_id'],
    rows: billbankRecords,
  },
];
