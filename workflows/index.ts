/** Workflow entry points loaded by the worker bundle. */
export { conversationTurn, conversationTurnV2 } from './conversation-turn';
export * from './messages';
