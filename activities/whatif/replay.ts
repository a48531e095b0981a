import { toolCodeKey } from '../../core/config/vocabulary';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { ConfigSnapshot } from '../../core/config/types';
import { errorMessage } from '../../core/errors';
import { createTaskRegistry, type TaskRegistry } from '../../core/tasks/registry';
import { diffTurn, skippedTurn, type ConversationWhatifResult, type TurnDiff } from '../../core/whatif/diff';
import { emptyTurnFacts, turnFactsOf, type TurnFacts } from '../../core/whatif/facts';
import type { Database } from '../../db/pool';
import { committedTurnCount } from '../../db/repositories/conversation';
import { listAudits } from '../../db/repositories/audit';
import { isRetired } from '../../db/repositories/retired';
import { readRecording, recordedTurnCount, type RecordedTurn } from '../../db/whatif/recording';
import type { ActivityDeps, Clock } from '../deps';
import { runTurnInProcess } from '../runner/in-process';
import { CircuitRegistry } from '../tools/http/circuit';
import type { ToolDeps, ToolHandler } from '../tools/deps';
import { draftFromVersion, draftStore, WhatifInputError } from './draft';
import { normaliserFor, renamerFor, replayFeeds, type ReplayFeeds } from './feeds';
import { cannotRunError, inScratchTransaction } from './scratch';
import { fullAuditGate } from '../runtime/audit-gate';

/**
 * What-if replay (issue #15): re-runs a recorded conversation's turns in this process, through the
 * same driver and activities as the workflow, against a draft config — answering every model
 * question, tool call and approval from what was recorded — and compares each turn with the
 * recorded one. The replay runs under a fresh conversation id inside a transaction that is rolled
 * back, so the recorded conversation (and everything else) is left exactly as it was.
 */
export interface WhatifDeps {
  /** The engine database: recordings are read from it, the replay runs in a rolled-back transaction on it. */
  db: Database;
  /** Consumer task code for SET_TASK rules and pending actions (default: none registered). */
  tasks?: TaskRegistry;
}

export interface WhatifRequest {
  conversationId: string;
  /** The draft: a snapshot (e.g. from a YAML tree, see draftFromRows) or a stored version / `current`. */
  config: ConfigSnapshot | { version: string };
  /**
   * Refuse (CONVERSATION_TOO_LONG) a conversation with more recorded turns than this, before anything is
   * read: a replay runs every turn in this process, on one held connection. Unset: no bound (the CLI).
   */
  maxTurns?: number;
}

/** An object any use of which is a bug: the replay never reaches SQL tools, HTTP or a parser. */
function refusing<T extends object>(what: string): T {
  return new Proxy({} as T, {
    get() {
      throw new Error(`what-if replay never uses ${what}`);
    },
  });
}

function replayToolDeps(draft: ConfigSnapshot, handler: ToolHandler): ToolDeps {
  const handlers = new Map(draft.rows.mcpTools.map((tool) => [toolCodeKey(tool.toolCode), handler] as const));
  return {
    sql: refusing('the tools role SQL pool'),
    sqlParser: refusing('the SQL parser'),
    circuits: new CircuitRegistry(),
    env: {},
    interceptors: [],
    handlers,
    sleep: async () => undefined,
  };
}

/** The turn's clock reads the recorded turn's time, so time-dependent prompts ask the same question. */
class ReplayClock implements Clock {
  at = new Date(0);
  now(): Date {
    return new Date(this.at.getTime());
  }
}

/**
 * Where the scratch conversation's audit trail stood before the turn being replayed: each turn reads only
 * the rows written after it (on the (conversation_id, audit_id) index), so a long conversation's replay
 * costs each turn its own rows, not every earlier turn's again.
 */
interface ScratchTrail {
  scratchId: string;
  afterAuditId: number;
}

/** The replayed turn's facts in recorded terms (its own conversation id replaced by the recorded one). */
async function replayedFacts(db: Database, trail: ScratchTrail, turnNumber: number, rename: (t: string) => string) {
  const written = await listAudits(db, trail.scratchId, { afterAuditId: trail.afterAuditId });
  trail.afterAuditId = written.at(-1)?.auditId ?? trail.afterAuditId;
  const rows = written.filter((row) => row.turnNumber === turnNumber);
  return JSON.parse(rename(JSON.stringify(turnFactsOf(rows)))) as TurnFacts;
}

async function replayTurn(
  deps: ActivityDeps,
  feeds: ReplayFeeds,
  trail: ScratchTrail,
  turn: RecordedTurn,
  rename: (t: string) => string
): Promise<TurnFacts> {
  const { db } = deps;
  const turnNumber = (await committedTurnCount(db, trail.scratchId)) + 1;
  await db.execute(sql.raw('savepoint ce_whatif_turn'));
  let failure: string | null = null;
  try {
    await runTurnInProcess(
      deps,
      { conversationId: trail.scratchId, message: turn.message, inputParams: turn.inputParams },
      {
        maxAttempts: 1,
        approve: (request) => feeds.approve(request),
        decideHeldTool: (request) => feeds.decideHeldTool(request),
      }
    );
  } catch (err) {
    // A database that refuses the replay's own writes fails every turn under any draft: not the draft's difference.
    const cannotRun = cannotRunError(err);
    if (cannotRun) throw cannotRun;
    failure = errorMessage(err);
  }
  if (failure === null) {
    const facts = await replayedFacts(db, trail, turnNumber, rename);
    await db.execute(sql.raw('release savepoint ce_whatif_turn'));
    return facts;
  }
  let facts: TurnFacts;
  try {
    const read = await replayedFacts(db, trail, turnNumber, rename);
    facts = { ...read, error: read.error ?? failure };
  } catch {
    // The failure left the transaction unusable; the error is what we know.
    facts = { ...emptyTurnFacts(), error: failure };
  }
  // A failed turn commits nothing, so the next one takes its turn number and, in process (no run id in the keys),
  // would rewrite its rows in place, under the trail's watermark: back to before the turn, once its facts are read.
  await db.execute(sql.raw('rollback to savepoint ce_whatif_turn; release savepoint ce_whatif_turn'));
  return facts;
}

async function replayConversation(
  scratchDb: Database,
  draft: ConfigSnapshot,
  recording: NonNullable<Awaited<ReturnType<typeof readRecording>>>,
  tasks: TaskRegistry
): Promise<TurnDiff[]> {
  const scratchId = randomUUID();
  const feeds = replayFeeds(recording, normaliserFor(scratchId, recording.conversationId));
  const rename = renamerFor(scratchId, recording.conversationId);
  const clock = new ReplayClock();
  const deps: ActivityDeps = {
    db: scratchDb,
    configStore: draftStore(draft),
    llm: feeds.llm,
    clock,
    tasks,
    tools: replayToolDeps(draft, feeds.toolHandler),
    audit: fullAuditGate,
  };
  const trail: ScratchTrail = { scratchId, afterAuditId: 0 };
  const diffs: TurnDiff[] = [];
  for (const turn of recording.turns) {
    const ref = { conversationId: recording.conversationId, turnNumber: turn.turnNumber, userText: turn.message };
    // A failed message a later one superseded committed nothing and is not replayed; the report names it.
    const superseded = turn.superseded.length > 0 ? { superseded: turn.superseded } : {};
    if (diffs.some((d) => d.missing.length > 0)) {
      diffs.push({ ...skippedTurn(ref, turn.facts), ...superseded });
      continue;
    }
    feeds.beginTurn(turn.turnNumber);
    clock.at = turn.receivedAt;
    const replayed = await replayTurn(deps, feeds, trail, turn, rename);
    diffs.push({ ...diffTurn(ref, turn.facts, replayed, feeds.missing()), ...superseded });
  }
  return diffs;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Replays one recorded conversation against the draft and reports every turn. */
export async function whatifConversation(deps: WhatifDeps, request: WhatifRequest): Promise<ConversationWhatifResult> {
  if (!UUID.test(request.conversationId)) {
    throw new WhatifInputError('BAD_REQUEST', `conversation id must be a UUID, got "${request.conversationId}"`);
  }
  if (request.maxTurns !== undefined) {
    const turns = await recordedTurnCount(deps.db, request.conversationId);
    if (turns > request.maxTurns) {
      throw new WhatifInputError(
        'CONVERSATION_TOO_LONG',
        `conversation ${request.conversationId} has ${turns} recorded turns; a replay here takes at most ` +
          `${request.maxTurns} (convengine whatif replays any length)`
      );
    }
  }
  const recording = await readRecording(deps.db, request.conversationId);
  if (!recording) {
    if (await isRetired(deps.db, request.conversationId)) {
      throw new WhatifInputError(
        'CONVERSATION_RETIRED',
        `conversation ${request.conversationId} was pruned or erased: its recorded turns are gone`
      );
    }
    throw new WhatifInputError(
      'CONVERSATION_NOT_FOUND',
      `no recorded turns for conversation ${request.conversationId}`
    );
  }
  const draft = 'rows' in request.config ? request.config : await draftFromVersion(deps.db, request.config.version);
  const tasks = deps.tasks ?? createTaskRegistry({});
  const turns = await inScratchTransaction(deps.db.$client, (scratch) =>
    replayConversation(scratch, draft, recording, tasks)
  );
  return { conversationId: request.conversationId, configVersion: draft.version, turns };
}
