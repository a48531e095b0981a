/** Workflow entry points loaded by the worker bundle. */
export { conversationTurn, conversationTurnV2, conversationTurnV3 } from './conversation-turn';
export { activityRoundTripProbe } from './probe';
export * from './messages';
