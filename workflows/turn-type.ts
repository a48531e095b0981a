/**
 * The workflow type the API starts for a turn. Older types stay registered on the worker for the turns they
 * began; a worker of an older build lacks this one (docs/operations.md, "Upgrades and rollbacks").
 */
export const TURN_WORKFLOW_TYPE = 'conversationTurnV3';
