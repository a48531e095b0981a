import type { Client } from '@temporalio/client';
import { isRetired } from '../../db/repositories/retired';
import type { Database } from '../../db/pool';
import { parkedConversations } from '../turns/approval-queue';
import type { ConsolePorts, ConversationPage, ConversationSearch, ParkedStatus } from './ports';
import { searchConversations } from './conversation-search';
import { auditedUserInputs, recordOperatorAction, showParkedPage, turnAudits } from './queries';
import { CONSOLE_READ_CONCURRENCY, ReadBudget } from './read-budget';
import { temporalInspector } from './temporal-inspector';

/**
 * A page of the conversation list, its parked conversations (Temporal's visibility, one list outside the database's
 * read budget) shown as AWAITING_APPROVAL or HELD. A status filter needs them first; without one both are read at
 * once, a database that is down or not migrated is said first, as on every route that reads it, and a visibility
 * that cannot be read leaves the stored statuses, marked `parkedUnknown`.
 */
async function conversationPage(
  db: Database,
  parkedNow: () => Promise<Map<string, ParkedStatus>>,
  budget: ReadBudget,
  search: ConversationSearch
): Promise<ConversationPage> {
  if (search.status) {
    const parked = await parkedNow();
    const page = await budget.run(() => searchConversations(db, { ...search, parked }));
    return showParkedPage(page, parked);
  }
  const [page, parked] = await Promise.allSettled([budget.run(() => searchConversations(db, search)), parkedNow()]);
  if (page.status === 'rejected') throw page.reason;
  // Without a filter the list stays readable in a Temporal outage, when operators need it most: its statuses are
  // the stored ones, and the page says that parked conversations could not be read.
  if (parked.status === 'rejected') return { ...page.value, parkedUnknown: true };
  return showParkedPage(page.value, parked.value);
}

/** Where the console's deployment runs its turns (TEMPORAL_TASK_QUEUE), and the Web UI it links them to. */
export interface ConsoleDeployment {
  taskQueue: string;
  temporalUiUrl: string | undefined;
}

/**
 * The console's real ports: PostgreSQL for conversations and audit (within the console's read budget), the Temporal
 * client for the turns of the deployment's task queue (a namespace may hold other deployments' turns too).
 */
export function consolePorts(db: Database, client: Client, deployment: ConsoleDeployment): ConsolePorts {
  const { taskQueue, temporalUiUrl } = deployment;
  const budget = new ReadBudget(CONSOLE_READ_CONCURRENCY);
  const parkedNow = () => parkedConversations(client, taskQueue);
  return {
    searchConversations: (search) => conversationPage(db, parkedNow, budget, search),
    parked: (conversationId) => parkedConversations(client, taskQueue, conversationId),
    turnAudits: (conversationId, turnNumber) => budget.run(() => turnAudits(db, conversationId, turnNumber)),
    userInputs: (conversationId, turnNumbers) => budget.run(() => auditedUserInputs(db, conversationId, turnNumbers)),
    read: (work) => budget.run(work),
    retired: (conversationId) => budget.run(() => isRetired(db, conversationId)),
    inspector: temporalInspector(client, taskQueue),
    recordAction: (record) => recordOperatorAction(db, record),
    temporalUi: temporalUiUrl ? { url: temporalUiUrl, namespace: client.options.namespace } : null,
  };
}
