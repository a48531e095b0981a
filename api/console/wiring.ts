import type { Client } from '@temporalio/client';
import type { Database } from '../../db/pool';
import type { ConsolePorts } from './ports';
import { auditedUserInputs, recordOperatorAction, searchConversations, turnAudits } from './queries';
import { CONSOLE_READ_CONCURRENCY, ReadBudget } from './read-budget';
import { temporalInspector } from './temporal-inspector';

/**
 * The console's real ports: PostgreSQL for conversations and audit (within the console's read budget), the Temporal
 * client for turns.
 */
export function consolePorts(db: Database, client: Client, temporalUiUrl: string | undefined): ConsolePorts {
  const budget = new ReadBudget(CONSOLE_READ_CONCURRENCY);
  return {
    searchConversations: (search) => budget.run(() => searchConversations(db, search)),
    turnAudits: (conversationId, turnNumber) => budget.run(() => turnAudits(db, conversationId, turnNumber)),
    userInputs: (conversationId, turnNumbers) => budget.run(() => auditedUserInputs(db, conversationId, turnNumbers)),
    read: (work) => budget.run(work),
    inspector: temporalInspector(client),
    recordAction: (record) => recordOperatorAction(db, record),
    temporalUi: temporalUiUrl ? { url: temporalUiUrl, namespace: client.options.namespace } : null,
  };
}
