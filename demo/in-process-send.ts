import type { ActivityDeps } from '../activities/deps';
import { runTurnInProcess, type InProcessRunOptions } from '../activities/runner/in-process';
import type { Payload } from '../core/session';
import type { DemoSend } from './demo-runner';

/** The text a user sees for a payload: TEXT as is, JSON as its JSON text. */
export function replyTextOf(payload: Payload): string {
  return payload.type === 'TEXT' ? payload.value : JSON.stringify(payload.value);
}

/**
 * The demo transport that runs each turn in this process with the worker's own activities
 * (runTurnInProcess): for tests and for checking a config without Temporal or the HTTP API.
 */
export function inProcessDemoSend(deps: ActivityDeps, options: InProcessRunOptions = {}): DemoSend {
  return async (conversationId, turn) => {
    const result = await runTurnInProcess(
      deps,
      {
        ...(conversationId === null ? {} : { conversationId }),
        message: turn.message,
        ...(turn.inputParams ? { inputParams: turn.inputParams } : {}),
      },
      options
    );
    return {
      conversationId: result.conversationId,
      reply: replyTextOf(result.payload),
      intent: result.intent,
      state: result.state,
      outcome: result.outcome,
      workflowId: null,
    };
  };
}
