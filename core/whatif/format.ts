import type { Json } from '../json';
import { countByStatus, type FieldChange, type TurnDiff, type WhatifReport } from './diff';
import { cutText } from '../text/cut-text';
import { oneLineText } from '../text/one-line-text';

/** The human-readable what-if report: one line per turn, then one indented line per change. */
const MAX_VALUE = 100;
const MAX_MESSAGE = 59;

function shown(value: Json): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value ?? null);
  return text.length > MAX_VALUE ? `${cutText(text, MAX_VALUE - 1)}…` : text;
}

function listChange(change: FieldChange): string {
  const before = Array.isArray(change.recorded) ? change.recorded.map(String) : [];
  const after = Array.isArray(change.replayed) ? change.replayed.map(String) : [];
  const removed = before.filter((v) => !after.includes(v)).map((v) => `- ${v}`);
  const added = after.filter((v) => !before.includes(v)).map((v) => `+ ${v}`);
  const parts = [...removed, ...added];
  return parts.length > 0 ? parts.join('  ') : `order ${shown(change.recorded)} → ${shown(change.replayed)}`;
}

function changeLine(change: FieldChange): string {
  const body =
    Array.isArray(change.recorded) || Array.isArray(change.replayed)
      ? listChange(change)
      : `${shown(change.recorded)} → ${shown(change.replayed)}`;
  return `${change.field}: ${body}`;
}

/** What was missing and what changed: text users, models and tools wrote, shown on one line and never obeyed. */
function detailLines(turn: TurnDiff): string[] {
  const superseded = (turn.superseded ?? []).map(
    (message) => `not replayed: ${shown(message)} failed before this message took its turn number`
  );
  const lines =
    turn.status === 'skipped'
      ? ['not replayed: an earlier turn needs a recording']
      : [...turn.missing.map((m) => `needs ${m.kind}: ${m.what}`), ...turn.changes.map(changeLine)];
  return [...superseded, ...lines].map((line) => oneLineText(line));
}

const pad = (text: string, width: number) => text.padEnd(width);

export function formatWhatifReport(report: WhatifReport): string[] {
  const since = report.since !== undefined ? `, conversations with a turn since ${report.since}` : '';
  const lines = [`what-if against config ${report.config.version} (${report.config.source})${since}`];
  lines.push(`${pad('CONVERSATION', 38)}${pad('TURN', 6)}${pad('STATUS', 16)}MESSAGE`);
  for (const conversation of report.conversations) {
    for (const turn of conversation.turns) {
      const message = oneLineText(turn.userText, MAX_MESSAGE);
      const status = turn.status.replace('-', ' ');
      lines.push(
        `${pad(conversation.conversationId, 38)}${pad(String(turn.turnNumber), 6)}${pad(status, 16)}${message}`
      );
      for (const detail of detailLines(turn)) lines.push(`${' '.repeat(44)}${detail}`);
    }
  }
  const counts = countByStatus(report);
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const parts = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([status, n]) => `${n} ${status.replace('-', ' ')}`);
  lines.push(
    `${report.conversations.length} conversation(s), ${total} turn(s)${parts.length ? `: ${parts.join(', ')}` : ''}`
  );
  return lines;
}
