import type { Json } from '../json';
import { FACT_FIELDS, type FactField, type TurnFacts } from './facts';

/**
 * A recording the replay needed and did not have: a model question (prompt) never asked in the
 * recorded run, a tool call never made, an approval never decided, a held tool call (#22) no operator
 * decided. The turn is then reported as needing it rather than guessed.
 */
export interface MissingRecording {
  kind: 'model' | 'tool' | 'approval' | 'operator';
  /**
   * What was asked: the call kind and prompt hash, the tool and its arguments, the tool to approve, the held
   * call.
   */
  what: string;
}

/**
 * `same` / `changed`: the replay ran on recordings only. `needs-model` / `needs-tool` /
 * `needs-approval` / `needs-operator`: the draft asked something never recorded. `skipped`: an earlier turn of the
 * conversation needed a recording, so the state this turn would start from is unknown.
 */
export type TurnStatus =
  'same' | 'changed' | 'needs-model' | 'needs-tool' | 'needs-approval' | 'needs-operator' | 'skipped';

export interface FieldChange {
  field: FactField;
  recorded: Json;
  replayed: Json;
}

export interface TurnDiff {
  conversationId: string;
  turnNumber: number;
  userText: string;
  status: TurnStatus;
  /** Empty when the turn was skipped or needs a recording (`missing`): see diffTurn. */
  changes: FieldChange[];
  missing: MissingRecording[];
  recorded: TurnFacts;
  /**
   * Null when the turn was skipped. For a turn that needs a recording, where the replay ended after refusing the
   * question it could not answer: not what the draft would do.
   */
  replayed: TurnFacts | null;
  /**
   * Messages that failed under this turn number before `userText` took it (a failed turn commits nothing, so the next
   * message runs as another run of the same turn id): not replayed, and said so. Absent when there were none.
   */
  superseded?: string[];
}

export interface ConversationWhatif {
  conversationId: string;
  turns: TurnDiff[];
}

/** One conversation replayed on its own (the API's answer): which draft version it ran on. */
export interface ConversationWhatifResult extends ConversationWhatif {
  configVersion: string;
}

export interface WhatifReport {
  /** The draft's config version (content hash) and where it came from (a directory or a stored version). */
  config: { version: string; source: string };
  /** `--since` as the instant it was read as (ISO, UTC): the report covers every conversation with a turn since. */
  since?: string;
  conversations: ConversationWhatif[];
}

const NEEDS: Record<MissingRecording['kind'], TurnStatus> = {
  model: 'needs-model',
  tool: 'needs-tool',
  approval: 'needs-approval',
  operator: 'needs-operator',
};

function sameValue(a: Json, b: Json): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function changedFields(recorded: TurnFacts, replayed: TurnFacts): FieldChange[] {
  return FACT_FIELDS.filter((field) => !sameValue(recorded[field], replayed[field])).map((field) => ({
    field,
    recorded: recorded[field],
    replayed: replayed[field],
  }));
}

/**
 * Compares one turn field by field; what is missing decides the status before any change does. A turn that needs a
 * recording has no changes: past the question it refused (no model answer, an approval taken as rejected) the replay
 * went on as the draft never would, so its differences (`approvals: + t REJECTED`, `error: … never recorded`) are the
 * refusal's, not the draft's. The CLI, the API and the console then all show only what is missing.
 */
export function diffTurn(
  turn: { conversationId: string; turnNumber: number; userText: string },
  recorded: TurnFacts,
  replayed: TurnFacts,
  missing: readonly MissingRecording[] = []
): TurnDiff {
  const first = missing[0];
  const changes = first ? [] : changedFields(recorded, replayed);
  const status: TurnStatus = first ? NEEDS[first.kind] : changes.length > 0 ? 'changed' : 'same';
  return { ...turn, status, changes, missing: [...missing], recorded, replayed };
}

export function skippedTurn(
  turn: { conversationId: string; turnNumber: number; userText: string },
  recorded: TurnFacts
): TurnDiff {
  return { ...turn, status: 'skipped', changes: [], missing: [], recorded, replayed: null };
}

/** Any turn that is not `same`: what `--fail-on-diff` gates on (a turn that needs a recording is not proven unchanged). */
export function hasDifference(report: WhatifReport): boolean {
  return report.conversations.some((c) => c.turns.some((t) => t.status !== 'same'));
}

export function countByStatus(report: WhatifReport): Record<TurnStatus, number> {
  const counts: Record<TurnStatus, number> = {
    same: 0,
    changed: 0,
    'needs-model': 0,
    'needs-tool': 0,
    'needs-approval': 0,
    'needs-operator': 0,
    skipped: 0,
  };
  for (const conversation of report.conversations) for (const turn of conversation.turns) counts[turn.status] += 1;
  return counts;
}
