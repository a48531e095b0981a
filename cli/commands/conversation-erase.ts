import { userInfo } from 'node:os';
import { Client, type Connection } from '@temporalio/client';
import { UUID_PATTERN } from '../../core/turn/turn-id';
import { shownText } from '../../core/text/one-line-text';
import { loadEnv, requireDatabaseUrl } from '../../config/env';
import { connectTemporalClient } from '../../config/temporal-client';
import { configuredTemporal } from '../../config/temporal-connection';
import { openDatabase, type DbHandle } from '../../db/pool';
import { ApiError } from '../../api/errors';
import { eraseConversation, type ErasureReport, type ErasureTemporal } from '../../api/turns/erase';
import { readOptions, usageError, type CliIo } from '../command';
import { databaseError } from '../database-failure';

export const ERASE_USAGE = [
  'convengine conversations erase --conversation <id>... [--force] [--retire-unknown]',
  '',
  "Erases a conversation (a data subject's request): in one transaction every row naming it (conversation,",
  'audit trail, history, LLM call log, turn requests) and the payload claims only its turns stored, retiring the id',
  '(410 CONVERSATION_RETIRED afterwards) and recording who erased it and the counts, not the id; then its turn',
  'workflow executions in Temporal (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE), those of its task queue',
  '(TEMPORAL_TASK_QUEUE) only: another deployment on the namespace keeps its own. A turn in flight is refused unless',
  '--force terminates it first. If Temporal does not answer, the line says what remains: run the command again.',
  'An id that is not retired, that no row names and of which Temporal has no turn on the task queue is refused',
  '(CONVERSATION_NOT_FOUND) unless --retire-unknown retires it all the same (a request for an id that may',
  'arrive later). An id erased before is erased again.',
  'Each --conversation is erased in turn, in its own transaction, with one line naming it: on stdout when erased, on',
  'stderr when refused or failed (the others are still erased). Exit 1 when any was refused or failed, else 3 when',
  'Temporal keeps part of any, else 0; 2 on bad usage (any id not a UUID: then none is erased).',
].join('\n');

const OPTIONS = { values: ['conversation'], repeatable: ['conversation'], flags: ['force', 'retire-unknown'] };
const UUID = new RegExp(UUID_PATTERN);

interface EraseArgs {
  /** Lower-cased, each once: an id given twice is one request. */
  ids: string[];
  force: boolean;
  retireUnknown: boolean;
}

const line = (id: string, r: ErasureReport) =>
  `erased conversation ${id}: ${r.rows.conversations} conversation(s), ${r.rows.auditRows} audit row(s), ` +
  `${r.rows.historyRows} history row(s), ${r.rows.llmCalls} LLM call log row(s), ${r.rows.turnRequests} turn ` +
  `request(s), ${r.rows.claims} payload claim(s), ${r.executionsDeleted} Temporal execution(s)` +
  (r.temporalRemaining ? `; REMAINS in Temporal: ${r.temporalRemaining}` : '');

/** The ids and flags, or the usage error; every id is checked before any is erased. */
function eraseArgs(args: string[]): EraseArgs | string {
  const parsed = readOptions(args, OPTIONS);
  if (typeof parsed === 'string') return parsed;
  const given = parsed.options.get('conversation') ?? [];
  if (parsed.unknown.length > 0 || parsed.positional.length !== 1 || given.length === 0) {
    return 'conversations erase needs --conversation <id>';
  }
  const bad = given.find((id) => !UUID.test(id));
  if (bad !== undefined) return `--conversation ${JSON.stringify(bad.slice(0, 80))} is not a conversation id (a UUID)`;
  return {
    ids: [...new Set(given.map((id) => id.toLowerCase()))],
    force: parsed.options.has('force'),
    retireUnknown: parsed.options.has('retire-unknown'),
  };
}

/** `conversations erase`: exit 2 on bad usage, 1 when any id is refused or fails, 3 when a Temporal part remains. */
export async function runErase(args: string[], io: CliIo): Promise<number> {
  const request = eraseArgs(args);
  if (typeof request === 'string') return usageError(io, request, ERASE_USAGE);
  const handle = openDatabase(requireDatabaseUrl(), { max: 2 });
  let connection: Connection | undefined;
  try {
    const env = loadEnv();
    connection = await connectTemporalClient(configuredTemporal(env), { connectTimeout: 5_000 }).catch(() => undefined);
    const workflow = connection ? new Client({ connection, namespace: env.TEMPORAL_NAMESPACE }).workflow : null;
    const temporal = workflow ? { workflow, taskQueue: env.TEMPORAL_TASK_QUEUE } : null;
    let code = 0;
    for (const id of request.ids) code = worse(code, await eraseOne(handle, temporal, id, request, io));
    return code;
  } catch (err) {
    io.err(`conversations erase failed: ${databaseError(handle.pool, err)}`);
    return 1;
  } finally {
    await connection?.close();
    await handle.close();
  }
}

/** 1 (something not erased at all) outranks 3 (erased, but Temporal keeps part), which outranks 0. */
const worse = (a: number, b: number) => (a === 1 || b === 1 ? 1 : Math.max(a, b));

/** Erases one id and prints its line; its exit code. */
async function eraseOne(
  handle: DbHandle,
  temporal: ErasureTemporal | null,
  id: string,
  { force, retireUnknown }: EraseArgs,
  io: CliIo
): Promise<number> {
  try {
    const request = { conversationId: id, terminate: force, retireUnknown, erasedBy: erasedBy() };
    const report = await eraseConversation(handle.db, temporal, request);
    io.out(line(id, report));
    return report.temporalRemaining ? 3 : 0;
  } catch (err) {
    if (err instanceof ApiError) io.err(shownText(`conversations erase refused ${id}: ${err.code}: ${err.message}`));
    else io.err(`conversations erase failed ${id}: ${databaseError(handle.pool, err)}`);
    return 1;
  }
}

function erasedBy(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return 'cli';
  }
}
