import { cloneJson } from '../json';
import type { Session } from '../session';
import type { TurnInput } from './contracts';

/** The session a turn starts from, before LoadOrCreateConversation fills it from the database. */
export function blankSession(turn: TurnInput): Session {
  return {
    conversationId: turn.conversationId,
    turnNumber: turn.turnNumber,
    configVersion: '',
    conversationStatus: 'RUNNING',
    userText: turn.message,
    intent: 'UNKNOWN',
    state: 'UNKNOWN',
    context: {},
    inputParams: cloneJson(turn.inputParams),
    userInputParams: cloneJson(turn.inputParams),
    requestContext: { ...turn.requestContext },
    standaloneQuery: null,
    resolvedUserInput: turn.message,
    intentLocked: false,
    intentLockReason: null,
    pendingClarification: null,
    resolvedSchema: null,
    schemaComplete: false,
    hasAnySchemaValue: false,
    missingRequiredFields: [],
    missingFieldOptions: {},
    lastLlmOutput: null,
    lastLlmStage: null,
    payload: null,
    lastAssistantJson: null,
    history: [],
    stepInfos: {},
  };
}
