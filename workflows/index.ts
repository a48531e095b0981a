/** Workflow entry points loaded by the worker bundle. */
export { conversationTurn } from './conversation-turn';
export * from './messages';
