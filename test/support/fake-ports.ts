import type { ConsolePorts, TurnInspector } from '../../api/console/ports';
import type { ApiPorts, AuditRowView, ConversationQueries, ConversationView } from '../../api/ports';

const unused = () => Promise.reject(new Error('not used by this test'));

/** An audit row as the API shows it, with what a route test does not care about filled in. */
export function auditRow(conversationId: string, auditId: number, payload: AuditRowView['payload'] = {}): AuditRowView {
  return {
    auditId,
    conversationId,
    turnNumber: 1,
    runId: null,
    stage: 'VERBOSE_PROGRESS',
    payload,
    createdAt: '2026-11-27T20:00:00.000Z',
  };
}

/** One conversation's audit rows after a cursor, at most `max`: what a route test serves. */
export type AuditsOf = (conversationId: string, afterAuditId?: number, max?: number) => Promise<AuditRowView[]>;

/** `auditsAfter` as the database answers it, from a per-conversation `audits`: one call per cursor, in order (rows bounded, not bytes). */
export function auditsAfterFrom(audits: AuditsOf): ConversationQueries['auditsAfter'] {
  return async (cursors, share) => {
    const pages = [];
    for (const { conversationId, afterAuditId } of cursors)
      pages.push(await audits(conversationId, afterAuditId, share.rows));
    return pages.flat();
  };
}

/**
 * `auditsWithin` as the database answers it, from `audits`: the rows whose payloads (as JSON) fit the bytes, and of
 * the first that does not fit, only that it exists.
 */
export function auditsWithinFrom(audits: AuditsOf): ConversationQueries['auditsWithin'] {
  return async (conversationId, { afterAuditId, limit, maxBytes, takeFirst }) => {
    const page = { rows: [] as AuditRowView[], bytes: 0, full: false };
    for (const row of await audits(conversationId, afterAuditId, limit)) {
      const size = Buffer.byteLength(JSON.stringify(row.payload));
      if (page.bytes + size > maxBytes && !(takeFirst && page.rows.length === 0)) return { ...page, full: true };
      page.rows.push(row);
      page.bytes += size;
    }
    return page;
  };
}

/**
 * API ports for route tests without a database or Temporal: `conversationId` exists, its audit rows come
 * from `audits` (the streams' batched read from `auditsAfter`, else from `audits` one cursor at a time), and
 * `whatif` is mounted when given; everything else refuses.
 */
export function fakePorts(options: {
  conversationId?: string;
  audits?: AuditsOf;
  auditsAfter?: ConversationQueries['auditsAfter'];
  whatif?: ApiPorts['whatif'];
}): ApiPorts {
  const conversation = async (id: string) =>
    id === options.conversationId ? ({ conversationId: id } as unknown as ConversationView) : null;
  return {
    turns: { keyedConversation: unused, sendMessage: unused, decideApproval: unused, retryTurn: unused },
    conversations: {
      conversation,
      retired: async () => false,
      auditsAfter: options.auditsAfter ?? (options.audits ? auditsAfterFrom(options.audits) : unused),
      auditsWithin: options.audits ? auditsWithinFrom(options.audits) : unused,
    },
    config: { refresh: unused },
    readiness: { check: async () => ({ checks: {} }) },
    ...(options.whatif ? { whatif: options.whatif } : {}),
  };
}

/** Console ports for route tests: the ones given, every other one refuses; no Temporal UI. */
export function fakeConsolePorts(
  given: Partial<Omit<ConsolePorts, 'inspector'>> & { inspector?: Partial<TurnInspector> } = {}
): ConsolePorts {
  return {
    searchConversations: unused,
    // No turn parked, unless a test says otherwise.
    parked: async () => new Map(),
    turnAudits: unused,
    userInputs: unused,
    read: (work) => work(),
    retired: async () => false,
    recordAction: unused,
    temporalUi: null,
    ...given,
    inspector: {
      turns: unused,
      history: unused,
      startMessages: unused,
      pendingActivities: unused,
      pendingApproval: unused,
      heldTool: unused,
      operateActivity: unused,
      ...given.inspector,
    },
  };
}
