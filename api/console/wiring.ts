import type { Client } from '@temporalio/client';
import type { Database } from '../../db/pool';
import type { ConsolePorts } from './ports';
import { recordOperatorAction, searchConversations, turnAudits } from './queries';
import { temporalInspector } from './temporal-inspector';

/** The console's real ports: PostgreSQL for conversations and audit, the Temporal client for turns. */
export function consolePorts(db: Database, client: Client, temporalUiUrl: string | undefined): ConsolePorts {
  return {
    searchConversations: (search) => searchConversations(db, search),
    turnAudits: (conversationId, turnNumber) => turnAudits(db, conversationId, turnNumber),
    inspector: temporalInspector(client),
    recordAction: (record) => recordOperatorAction(db, record),
    temporalUi: temporalUiUrl ? { url: temporalUiUrl, namespace: client.options.namespace } : null,
  };
}
