import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Typed search attributes of a turn. Only codes and numbers — never user text or ids of people
 * (PII must not reach the visibility store).
 */
export const ConversationIdKey = defineSearchAttributeKey('ConversationId', SearchAttributeType.KEYWORD);
export const TurnNumberKey = defineSearchAttributeKey('TurnNumber', SearchAttributeType.INT);
export const IntentKey = defineSearchAttributeKey('Intent', SearchAttributeType.KEYWORD);
export const StateKey = defineSearchAttributeKey('State', SearchAttributeType.KEYWORD);
export const TurnOutcomeKey = defineSearchAttributeKey('TurnOutcome', SearchAttributeType.KEYWORD);
export const ConfigVersionKey = defineSearchAttributeKey('ConfigVersion', SearchAttributeType.KEYWORD);

/** Name → type, for registering them on a namespace (dev server start-up, compose bootstrap). */
export const TURN_SEARCH_ATTRIBUTES = {
  ConversationId: 'Keyword',
  TurnNumber: 'Int',
  Intent: 'Keyword',
  State: 'Keyword',
  TurnOutcome: 'Keyword',
  ConfigVersion: 'Keyword',
} as const;
