import { isDeepStrictEqual } from 'node:util';
import type { Client } from '@temporalio/client';
import { and, asc, eq } from 'drizzle-orm';
import { listAudits } from '../../../db/repositories/audit';
import { findConversation } from '../../../db/repositories/conversation';
import type { Database } from '../../../db/pool';
import { ceConversationHistory } from '../../../db/schema';
import type { DemoToolServer } from '../../../demo/tool-server';
import { conversationTurnsQuery } from '../../../workflows/search-attributes';
import { stepFrames, stepsInHistory } from '../../support/audit-history';
import { stepRuns } from '../../support/history';
import { closedRuns, type RunSummary } from '../../support/visibility';
import type { ConversationRecord, TurnRecord } from './traffic';

/**
 * What "nothing lost, nothing twice" means after a fault scenario, checked per conversation and
 * returned as a list of violations (empty = all hold), so a failure names every broken promise.
 */
export interface InvariantContext {
  client: Client;
  db: Database;
  tools: DemoToolServer;
}

/** What the completed runs' histories show the faults did (for the scenario's report line). */
export interface FaultEvidence {
  /** Activities whose final attempt was > 1: retried after a timeout or a failure. */
  retriedActivities: number;
  /** The same, by activity type. */
  retriedByType: Record<string, number>;
  /** Workflow tasks that timed out (a worker died holding one) or failed. */
  workflowTaskTimeouts: number;
}

export function noEvidence(): FaultEvidence {
  return { retriedActivities: 0, retriedByType: {}, workflowTaskTimeouts: 0 };
}

/** The conversation's runs once every turn's run has closed (see closedRuns). */
function runsOf(client: Client, record: ConversationRecord): Promise<RunSummary[]> {
  return closedRuns(client, conversationTurnsQuery(record.conversationId));
}

/** Exactly one COMPLETED run per turn; any other run of it FAILED and was the one the client retried. */
function checkRuns(turn: TurnRecord, runs: RunSummary[]): string[] {
  const mine = runs.filter((r) => r.workflowId === turn.workflowId);
  const completed = mine.filter((r) => r.status === 'COMPLETED');
  const failed = mine.filter((r) => r.status === 'FAILED').map((r) => r.runId);
  const out: string[] = [];
  if (completed.length !== 1) out.push(`${turn.workflowId}: ${completed.length} completed runs`);
  if (mine.length !== completed.length + failed.length) out.push(`${turn.workflowId}: runs ${JSON.stringify(mine)}`);
  if (!isDeepStrictEqual([...failed].sort(), [...turn.failedRuns].sort())) {
    out.push(`${turn.workflowId}: failed runs ${failed.join(',')} but the client retried ${turn.failedRuns.join(',')}`);
  }
  return out;
}

async function checkTurnAudits(
  ctx: InvariantContext,
  turn: TurnRecord,
  run: RunSummary | undefined,
  evidence: FaultEvidence
): Promise<string[]> {
  if (!run) return [];
  const events = (await ctx.client.workflow.getHandle(turn.workflowId, run.runId).fetchHistory()).events ?? [];
  const entries = stepRuns(events);
  for (const retried of entries.filter((e) => (e.attempt ?? 1) > 1)) {
    evidence.retriedActivities += 1;
    evidence.retriedByType[retried.type] = (evidence.retriedByType[retried.type] ?? 0) + 1;
  }
  evidence.workflowTaskTimeouts += events.filter(
    (e) => e.workflowTaskTimedOutEventAttributes || e.workflowTaskFailedEventAttributes
  ).length;
  // Each run of a turn writes rows of its own: a failed run's rows stay beside the completed run's.
  const rows = (await listAudits(ctx.db, turn.conversationId)).filter(
    (r) => r.turnNumber === turn.turnNumber && (r.runId === null || r.runId === run.runId)
  );
  const out: string[] = [];
  // conversationTurnV3 (as V2) carries no audits in history: each step wrote its rows once, keyed.
  const keys = rows.map((r) => r.idempotencyKey);
  if (new Set(keys).size !== keys.length) out.push(`${turn.workflowId}: duplicate audit keys`);
  const exits = rows.filter((r) => r.stage === 'STEP_EXIT').length;
  if (exits !== entries.filter((e) => e.outcome === 'COMPLETED').length) {
    out.push(`${turn.workflowId}: ${exits} STEP_EXIT rows vs ${entries.length} completed steps in history`);
  }
  if (!isDeepStrictEqual(stepFrames(rows), stepsInHistory(entries))) {
    out.push(
      `${turn.workflowId}: STEP_ENTER frames ${stepFrames(rows).length} vs ${stepsInHistory(entries).length} steps`
    );
  }
  return out;
}

/** turn_count, one history row per turn, and the row equals what the last turn answered. */
async function checkConversationRow(db: Database, record: ConversationRecord): Promise<string[]> {
  const id = record.conversationId;
  const row = await findConversation(db, id);
  const history = await db
    .select()
    .from(ceConversationHistory)
    .where(and(eq(ceConversationHistory.conversationId, id)))
    .orderBy(asc(ceConversationHistory.turnNumber));
  const out: string[] = [];
  const last = record.turns.at(-1)?.result;
  if (!row || !last) return [`${id}: no conversation row or no turns`];
  if (row.turnCount !== record.turns.length) out.push(`${id}: turn_count ${row.turnCount} ≠ ${record.turns.length}`);
  const turns = history.map((h) => [h.turnNumber, h.userInput]);
  const sent = record.turns.map((t) => [t.turnNumber, t.turn.message]);
  if (!isDeepStrictEqual(turns, sent)) out.push(`${id}: history rows ${JSON.stringify(turns)}`);
  if (row.intentCode !== last.intent || row.stateCode !== last.state) {
    out.push(`${id}: row ${row.intentCode}/${row.stateCode} ≠ last turn ${last.intent}/${last.state}`);
  }
  const lastReply = history.at(-1)?.assistantOutput;
  if (!isDeepStrictEqual(row.lastAssistantJson, lastReply)) out.push(`${id}: last_assistant_json ≠ last history row`);
  if (last.payload.type === 'TEXT' && !isDeepStrictEqual(lastReply, { type: 'TEXT', value: last.payload.value })) {
    out.push(`${id}: stored reply ${JSON.stringify(lastReply)} ≠ last turn's ${JSON.stringify(last.payload.value)}`);
  }
  return out;
}

export async function conversationViolations(
  ctx: InvariantContext,
  record: ConversationRecord,
  evidence: FaultEvidence = noEvidence()
): Promise<string[]> {
  const runs = await runsOf(ctx.client, record);
  const out = await checkConversationRow(ctx.db, record);
  const known = new Set(record.turns.map((t) => t.workflowId));
  for (const r of runs) if (!known.has(r.workflowId)) out.push(`${r.workflowId}: a run for a turn nobody sent`);
  for (const turn of record.turns) {
    out.push(...checkRuns(turn, runs));
    const completed = runs.find((r) => r.workflowId === turn.workflowId && r.status === 'COMPLETED');
    out.push(...(await checkTurnAudits(ctx, turn, completed, evidence)));
  }
  return out;
}

/** Every write the tool server applied, applied once per Idempotency-Key. */
export function writeViolations(tools: DemoToolServer): string[] {
  const keys = new Set(
    tools.counters.log.map((r) => r.headers['idempotency-key']).filter((k) => typeof k === 'string')
  );
  return [...keys]
    .filter((k) => tools.counters.writeEffects(k) > 1)
    .map((k) => `${k}: applied ${tools.counters.writeEffects(k)}×`);
}

/** All invariants for all conversations; `evidence` collects what the histories show the faults did. */
export async function violations(
  ctx: InvariantContext,
  records: readonly ConversationRecord[],
  evidence: FaultEvidence = noEvidence()
): Promise<string[]> {
  const out = writeViolations(ctx.tools);
  for (const record of records) out.push(...(await conversationViolations(ctx, record, evidence)));
  return out;
}

/** Replies that differ from the demo's expectations (faults that retries hide must not change answers). */
export function replyMismatches(records: readonly ConversationRecord[]): string[] {
  return records.flatMap((c) =>
    c.turns.flatMap((t) => {
      const { reply, intent, state } = t.turn.expect;
      const text = t.result.payload.type === 'TEXT' ? t.result.payload.value : JSON.stringify(t.result.payload.value);
      const fits = typeof reply === 'string' ? reply === text : reply.test(text);
      return fits && intent === t.result.intent && state === t.result.state
        ? []
        : [`${t.workflowId}: ${t.result.intent}/${t.result.state} "${text}"`];
    })
  );
}
