import { carriedParams, mergeTurnParams, paramsToPersist } from '../../../core/conversation/params';
import { applyReset, resetReason } from '../../../core/conversation/reset';
import { intentLockFrom, pendingClarificationFrom, syncSessionToContext } from '../../../core/conversation/sync';
import { sessionFor } from '../../support/config-rows';

describe('turn params (D10)', () => {
  it('request params win; request-scoped persisted params are never carried', () => {
    const persisted = {
      tool_request: { tool_code: 'x' },
      skip_tool_execution: true,
      approval_granted: true,
      schema_id: 109,
      a: 'old',
    };
    expect(mergeTurnParams(persisted, { a: 'new' })).toEqual({ schema_id: 109, a: 'new' });
    expect(carriedParams({ reset: true, pending_action_result: 'EXECUTED', dialogue_act: 'EDIT' })).toEqual({
      dialogue_act: 'EDIT',
    });
  });

  it('persists safe params only', () => {
    expect(paramsToPersist({ session: {}, context: {}, schema_json: {}, keep: 1, skip_tool_execution: true })).toEqual({
      keep: 1,
    });
  });
});

describe('resets (§5.5)', () => {
  it.each([
    [{}, true, 'hi', 'INPUT_PARAM:reset'],
    [{ restart: 'yes' }, false, 'hi', 'INPUT_PARAM:restart'],
    [{ conversation_reset: 1 }, false, 'hi', 'INPUT_PARAM:conversation_reset'],
    [{}, false, ' /Restart ', 'USER_TEXT_COMMAND'],
    [{ reset: 'no' }, false, 'please reset my password', null],
  ])('%j reset=%s "%s" → %s', (params, flag, text, reason) => {
    expect(resetReason(params, flag, text)).toBe(reason);
  });

  it('clears the session and re-seeds params from the request minus the reset flags', () => {
    const session = sessionFor('x', {
      intent: 'FAQ',
      state: 'IDLE',
      context: { x: 1 },
      intentLocked: true,
      pendingClarification: { question: 'q', reason: 'AGENT' },
    });
    applyReset(session, { reset: true, keep: 'me' });
    expect(session).toMatchObject({
      intent: 'UNKNOWN',
      state: 'UNKNOWN',
      context: {},
      inputParams: { keep: 'me' },
      intentLocked: false,
      pendingClarification: null,
    });
  });
});

describe('clarification and lock state round-trip through context', () => {
  it('writes and reads back', () => {
    const session = sessionFor('x', {
      pendingClarification: { question: 'Which one?', reason: 'AGENT' },
      intentLocked: true,
      intentLockReason: 'SCHEMA_INCOMPLETE',
    });
    syncSessionToContext(session);
    expect(pendingClarificationFrom(session.context)).toEqual({ question: 'Which one?', reason: 'AGENT' });
    expect(intentLockFrom(session.context)).toEqual({ locked: true, reason: 'SCHEMA_INCOMPLETE' });
    session.pendingClarification = null;
    session.intentLocked = false;
    syncSessionToContext(session);
    expect(session.context['pending_clarification']).toBeUndefined();
    expect(intentLockFrom(session.context)).toEqual({ locked: false, reason: null });
    expect(pendingClarificationFrom({ pending_clarification: { question: ' ' } })).toBeNull();
  });
});
