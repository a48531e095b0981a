import type { JsonObject } from '../../../core/json';
import { auditKeyRoot } from '../../../activities/runtime/audit-keys';
import { insertAudits, type AuditInsert } from '../../../db/repositories/audit';
import { ensureConversation } from '../../../db/repositories/conversation';
import { insertLlmCall, type LlmCallLogEntry } from '../../../db/repositories/llm-call-log';
import { readRecording } from '../../../db/whatif/recording';
import { createTestDatabase, type TestDatabase } from '../../support/database';

/**
 * A turn that failed, then was run again (an operator's retry, or a new message taking its number): the same
 * workflow id, a new run, whose rows come after the failed run's, which stay. The recording must be the last
 * run's, not a mix of both runs.
 */
describe('what-if recording of a retried turn (db/whatif/recording.ts)', () => {
  let tdb: TestDatabase;
  const conversationId = '00000000-0000-4000-8000-0000000000e1';
  const turnId = `turn-${conversationId}-1`;

  beforeAll(async () => {
    tdb = await createTestDatabase();
    await ensureConversation(tdb.db, conversationId);
  });
  afterAll(async () => tdb.drop());

  const row = (key: string, stage: string, payload: JsonObject, runId: string | null): AuditInsert => ({
    conversationId,
    turnNumber: 1,
    stage,
    payload,
    idempotencyKey: `${auditKeyRoot(turnId, runId)}/${key}`,
    workflowId: turnId,
    runId,
  });
  const llmCall = (response: string, runId: string | null): LlmCallLogEntry => ({
    conversationId,
    turnNumber: 1,
    callKind: 'RESP_TEXT',
    intentCode: 'ORDER',
    stateCode: 'IDLE',
    provider: 'anthropic',
    model: 'm',
    temperature: null,
    promptText: 'Answer.\n\nstatus?',
    userContext: null,
    responseText: response,
    success: true,
    errorMessage: null,
    latencyMs: 1,
    runId,
  });
  const request = { tool_code: 'mock.order.status', args: { orderId: 'ORD-1' } };

  it("takes a retried turn's tool results and model answers from the run it ended with", async () => {
    // Run 1: the direct tool failed for good, then the turn failed.
    await insertAudits(tdb.db, [
      row('03-AuditUserInput/0', 'USER_INPUT', { text: 'status?' }, 'run-1'),
      row('16-ToolOrchestration/0', 'TOOL_ORCHESTRATION_REQUEST', request, 'run-1'),
      row(
        '16-ToolOrchestration-direct-tool-failed/0',
        'TOOL_ORCHESTRATION_ERROR',
        {
          ...request,
          error: 'upstream down',
          errorType: 'TOOL_EXECUTION_FAILED',
        },
        'run-1'
      ),
    ]);
    await insertLlmCall(tdb.db, llmCall('from the failed run', 'run-1'));
    // Run 2, a new message taking the failed turn's number: rows of its own, and the tool answered.
    await insertAudits(tdb.db, [
      row('03-AuditUserInput/0', 'USER_INPUT', { text: 'status now?' }, 'run-2'),
      row('16-ToolOrchestration/0', 'TOOL_ORCHESTRATION_REQUEST', request, 'run-2'),
      row(
        '16-ToolOrchestration-direct-tool/0',
        'TOOL_ORCHESTRATION_RESULT',
        { ...request, result: { s: 'OK' } },
        'run-2'
      ),
      row('operator/a1', 'OPERATOR_ACTION', { action: 'retry' }, null),
    ]);
    await insertLlmCall(tdb.db, llmCall('from the retry', 'run-2'));

    const recording = await readRecording(tdb.db, conversationId);
    expect(recording?.toolCalls).toEqual([
      {
        turnNumber: 1,
        toolCode: 'mock.order.status',
        args: { orderId: 'ORD-1' },
        outcome: { ok: true, result: { s: 'OK' } },
      },
    ]);
    expect(recording?.llmCalls.map((c) => c.response)).toEqual(['from the retry']);
    expect(recording?.turns.map((t) => t.message)).toEqual(['status now?']);
    // The failed run said something else: a message the next one superseded, named rather than dropped unseen.
    expect(recording?.turns.map((t) => t.superseded)).toEqual([['status?']]);
  });

  it('names no superseded message for an operator retry, which runs the same message again', async () => {
    const retried = '00000000-0000-4000-8000-0000000000e3';
    await ensureConversation(tdb.db, retried);
    const ofRun = (runId: string): AuditInsert => ({
      ...row('03-AuditUserInput/0', 'USER_INPUT', { text: 'status?' }, runId),
      conversationId: retried,
      idempotencyKey: `${auditKeyRoot(`turn-${retried}-1`, runId)}/03-AuditUserInput/0`,
    });
    await insertAudits(tdb.db, [ofRun('run-1'), ofRun('run-2')]);
    const recording = await readRecording(tdb.db, retried);
    expect(recording?.turns.map((t) => [t.message, t.superseded])).toEqual([['status?', []]]);
  });

  it('keeps every row of a turn recorded without runs (in process, or before run ids were stored)', async () => {
    const other = '00000000-0000-4000-8000-0000000000e2';
    await ensureConversation(tdb.db, other);
    const mine = (key: string, stage: string, payload: JsonObject): AuditInsert => ({
      ...row(key, stage, payload, null),
      conversationId: other,
      idempotencyKey: `turn-${other}-1/${key}`,
    });
    await insertAudits(tdb.db, [
      mine('03-AuditUserInput/0', 'USER_INPUT', { text: 'status?' }),
      mine('16-ToolOrchestration/0', 'TOOL_ORCHESTRATION_REQUEST', request),
      mine('16-ToolOrchestration-direct-tool/0', 'TOOL_ORCHESTRATION_RESULT', { ...request, result: 1 }),
    ]);
    await insertLlmCall(tdb.db, { ...llmCall('answer', null), conversationId: other });
    const recording = await readRecording(tdb.db, other);
    expect(recording?.toolCalls.map((c) => c.outcome)).toEqual([{ ok: true, result: 1 }]);
    expect(recording?.llmCalls.map((c) => c.response)).toEqual(['answer']);
  });
});
