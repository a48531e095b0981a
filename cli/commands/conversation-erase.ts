import { userInfo } from 'node:os';
import { Client, type Connection } from '@temporalio/client';
import { UUID_PATTERN } from '../../core/turn/turn-id';
import { loadEnv, requireDatabaseUrl } from '../../config/env';
import { connectTemporalClient } from '../../config/temporal-client';
import { configuredTemporal } from '../../config/temporal-connection';
import { openDatabase } from '../../db/pool';
import { ApiError } from '../../api/errors';
import { eraseConversation, type ErasureReport } from '../../api/turns/erase';
import { readOptions, type CliIo } from '../command';
import { databaseError } from '../database-failure';

export const ERASE_USAGE = [
  'convengine conversations erase --conversation <id> [--force] [--retire-unknown]',
  '',
  "Erases one conversation (a data subject's request): in one transaction every row naming it (conversation,",
  'audit trail, history, LLM call log, turn requests) and the payload claims only its turns stored, retiring the id',
  '(410 CONVERSATION_RETIRED afterwards) and recording who erased it and the counts, not the id; then its turn',
  'workflow executions in Temporal (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE), those of its task queue',
  '(TEMPORAL_TASK_QUEUE) only: another deployment on the namespace keeps its own. A turn in flight is refused unless',
  '--force terminates it first. If Temporal does not answer, the line says what remains: run the command again.',
  'An id that is not retired, that no row names and of which Temporal has no turn on the task queue is refused',
  '(exit 1, CONVERSATION_NOT_FOUND) unless --retire-unknown retires it all the same (a request for an id that may',
  'arrive later). An id erased before is erased again (exit 0).',
].join('\n');

const UUID = new RegExp(UUID_PATTERN);

const line = (id: string, r: ErasureReport) =>
  `erased conversation ${id}: ${r.rows.conversations} conversation(s), ${r.rows.auditRows} audit row(s), ` +
  `${r.rows.historyRows} history row(s), ${r.rows.llmCalls} LLM call log row(s), ${r.rows.turnRequests} turn ` +
  `request(s), ${r.rows.claims} payload claim(s), ${r.executionsDeleted} Temporal execution(s)` +
  (r.temporalRemaining ? `; REMAINS in Temporal: ${r.temporalRemaining}` : '');

/** `conversations erase`: exit 2 on bad usage, 1 when refused or the database fails, 3 when Temporal part remains. */
export async function runErase(args: string[], io: CliIo): Promise<number> {
  const parsed = readOptions(args, { values: ['conversation'], flags: ['force', 'retire-unknown'] });
  const id = typeof parsed === 'string' ? undefined : parsed.options.get('conversation')?.at(-1);
  if (typeof parsed === 'string' || parsed.unknown.length > 0 || parsed.positional.length !== 1 || !id) {
    io.err(typeof parsed === 'string' ? parsed : 'conversations erase needs --conversation <id>');
    io.err(`Usage: ${ERASE_USAGE.split('\n')[0]}`);
    return 2;
  }
  if (!UUID.test(id)) {
    io.err(`--conversation ${JSON.stringify(id.slice(0, 80))} is not a conversation id (a UUID)`);
    return 2;
  }
  const handle = openDatabase(requireDatabaseUrl(), { max: 2 });
  let connection: Connection | undefined;
  try {
    const env = loadEnv();
    connection = await connectTemporalClient(configuredTemporal(env), { connectTimeout: 5_000 }).catch(() => undefined);
    const workflow = connection ? new Client({ connection, namespace: env.TEMPORAL_NAMESPACE }).workflow : null;
    const temporal = workflow ? { workflow, taskQueue: env.TEMPORAL_TASK_QUEUE } : null;
    const request = {
      conversationId: id.toLowerCase(),
      terminate: parsed.options.has('force'),
      retireUnknown: parsed.options.has('retire-unknown'),
      erasedBy: erasedBy(),
    };
    const report = await eraseConversation(handle.db, temporal, request);
    io.out(line(id, report));
    return report.temporalRemaining ? 3 : 0;
  } catch (err) {
    if (err instanceof ApiError) io.err(`conversations erase refused: ${err.code}: ${err.message}`);
    else io.err(`conversations erase failed: ${databaseError(handle.pool, err)}`);
    return 1;
  } finally {
    await connection?.close();
    await handle.close();
  }
}

function erasedBy(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return 'cli';
  }
}
