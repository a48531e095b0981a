import type { ApiPorts, AuditRowView, ConversationQueries, ConversationView } from '../../api/ports';

const unused = () => Promise.reject(new Error('not used by this test'));

/** An audit row as the API shows it, with what a route test does not care about filled in. */
export function auditRow(conversationId: string, auditId: number, payload: AuditRowView['payload'] = {}): AuditRowView {
  return {
    auditId,
    conversationId,
    turnNumber: 1,
    stage: 'VERBOSE_PROGRESS',
    payload,
    createdAt: '2026-11-27T20:00:00.000Z',
  };
}

/**
 * API ports for route tests without a database or Temporal: `conversationId` exists, its audit rows come
 * from `audits`, and `whatif` is mounted when given; everything else refuses.
 */
export function fakePorts(options: {
  conversationId?: string;
  audits?: ConversationQueries['audits'];
  whatif?: ApiPorts['whatif'];
}): ApiPorts {
  const conversation = async (id: string) =>
    id === options.conversationId ? ({ conversationId: id } as unknown as ConversationView) : null;
  return {
    turns: { sendMessage: unused, decideApproval: unused, retryTurn: unused },
    conversations: { conversation, audits: options.audits ?? unused },
    config: { refresh: unused },
    readiness: { check: async () => ({}) },
    ...(options.whatif ? { whatif: options.whatif } : {}),
  };
}
