import { normaliserFor, replayFeeds } from '../../activities/whatif/feeds';
import type { LlmRequest } from '../../core/llm';
import type { ToolHandlerContext } from '../../activities/tools/deps';
import type { HeldToolRequest } from '../../core/turn/executor';
import type { Recording } from '../../db/whatif/recording';

const RECORDED = '11111111-1111-4111-8111-111111111111';
const SCRATCH = '22222222-2222-4222-8222-222222222222';

const recording: Recording = {
  conversationId: RECORDED,
  turns: [],
  llmCalls: [
    {
      turnNumber: 1,
      runId: null,
      kind: 'INTENT',
      prompt: `Classify.\n\nconversation ${RECORDED} at 2026-01-01T10:00:00.000Z`,
      response: '{"intent":"FAQ"}',
    },
    { turnNumber: 2, runId: null, kind: 'RESP_TEXT', prompt: 'Say hi.\n\nhi', response: 'first' },
    { turnNumber: 2, runId: null, kind: 'RESP_TEXT', prompt: 'Say hi.\n\nhi', response: 'second' },
  ],
  toolCalls: [
    {
      turnNumber: 1,
      toolCode: 'order.status',
      args: { id: 'ORD-1' },
      outcome: { ok: true, result: { status: 'OPEN' } },
    },
    {
      turnNumber: 1,
      toolCode: 'order.cancel',
      args: { id: 'ORD-1' },
      outcome: { ok: false, error: 'HTTP 503', type: 'TOOL_HTTP_ERROR' },
    },
  ],
  approvals: [
    { turnNumber: 1, toolCode: 'order.cancel', callIndex: 2, decision: 'APPROVED', reason: null, decidedBy: 'ops' },
  ],
  holds: [
    {
      turnNumber: 1,
      toolCode: 'order.cancel',
      callIndex: 2,
      hold: 1,
      resolution: { action: 'retry', decidedBy: 'sre', reason: null },
    },
    {
      turnNumber: 1,
      toolCode: 'order.cancel',
      callIndex: 2,
      hold: 2,
      resolution: { action: 'markDone', decidedBy: 'sre', reason: 'checked', result: { cancelled: true } },
    },
  ],
};

const request = (kind: LlmRequest['kind'], systemPrompt: string, userPrompt: string): LlmRequest => ({
  kind,
  systemPrompt,
  userPrompt,
  meta: { conversationId: SCRATCH, turnNumber: 1, intent: 'UNKNOWN', state: 'UNKNOWN' },
});
const heldCall = (toolCode: string, callIndex: number, hold: number): HeldToolRequest => ({
  toolCode,
  callIndex,
  hold,
  idempotencyKey: 'k',
  sideEffect: 'IDEMPOTENT_WRITE',
  attempts: 2,
  failureType: 'TOOL_HTTP_ERROR',
  error: 'HTTP 503',
  outcomeUnknown: false,
  timeoutMs: 1000,
});
const tool = (toolCode: string, args: Record<string, string>) => ({ toolCode, args }) as unknown as ToolHandlerContext;

describe('what-if replay feeds', () => {
  const feeds = () => replayFeeds(recording, normaliserFor(SCRATCH, RECORDED));

  it('answers a model question by call kind and prompt, whatever conversation id and time the prompt names', async () => {
    const f = feeds();
    f.beginTurn(1);
    const asked = request('INTENT', 'Classify.', `conversation ${SCRATCH} at 2026-11-25T07:00:00.000Z`);
    await expect(f.llm.generateJson(asked)).resolves.toEqual({
      ok: true,
      json: { intent: 'FAQ' },
      raw: '{"intent":"FAQ"}',
    });
    expect(f.missing()).toEqual([]);
  });

  it('the same question asked twice in a turn gets the recorded answers in order', async () => {
    const f = feeds();
    f.beginTurn(2);
    expect(await f.llm.generateText(request('RESP_TEXT', 'Say hi.', 'hi'))).toBe('first');
    expect(await f.llm.generateText(request('RESP_TEXT', 'Say hi.', 'hi'))).toBe('second');
  });

  it('a question never recorded (new prompt, or another call kind) is refused and noted as "model"', async () => {
    const f = feeds();
    f.beginTurn(2);
    await expect(f.llm.generateText(request('RESP_TEXT', 'Say hello.', 'hi'))).rejects.toThrow(/never recorded/);
    await expect(f.llm.generateText(request('RESP_JSON', 'Say hi.', 'hi'))).rejects.toThrow(/never recorded/);
    expect(f.missing().map((m) => m.kind)).toEqual(['model', 'model']);
    f.beginTurn(3);
    expect(f.missing()).toEqual([]);
  });

  it('tools: the recorded result, the recorded failure, and "tool" for a call never made', async () => {
    const f = feeds();
    f.beginTurn(1);
    await expect(f.toolHandler(tool('ORDER.STATUS', { id: 'ORD-1' }))).resolves.toEqual({ status: 'OPEN' });
    // The same failure, of the same type: the context the replay writes (and prompts after it) read the same.
    await expect(f.toolHandler(tool('order.cancel', { id: 'ORD-1' }))).rejects.toMatchObject({
      message: 'HTTP 503',
      type: 'TOOL_HTTP_ERROR',
    });
    expect(f.missing()).toEqual([]);
    await expect(f.toolHandler(tool('order.status', { id: 'ORD-2' }))).rejects.toThrow(/never recorded/);
    expect(f.missing()).toEqual([{ kind: 'tool', what: 'order.status {"id":"ORD-2"}' }]);
  });

  it('approvals: the recorded decision, else a rejection noted as "approval"', async () => {
    const f = feeds();
    f.beginTurn(1);
    const ask = {
      toolCode: 'order.cancel',
      args: { id: 'ORD-1' },
      callIndex: 2,
      sideEffect: 'IDEMPOTENT_WRITE' as const,
      timeoutMs: 1000,
    };
    await expect(f.approve(ask)).resolves.toEqual({ decision: 'APPROVED', reason: null, decidedBy: 'ops' });
    f.beginTurn(2);
    await expect(f.approve(ask)).resolves.toMatchObject({ decision: 'REJECTED' });
    expect(f.missing()).toEqual([{ kind: 'approval', what: 'order.cancel {"id":"ORD-1"}' }]);
  });

  it('held calls: the operator\'s recorded decision on the same hold, else none, noted as "operator"', async () => {
    const f = feeds();
    f.beginTurn(1);
    await expect(f.decideHeldTool(heldCall('ORDER.CANCEL', 2, 1))).resolves.toMatchObject({ action: 'retry' });
    // The draft may number its calls anew: the same tool's same hold still finds the decision.
    await expect(f.decideHeldTool(heldCall('order.cancel', 3, 2))).resolves.toEqual({
      action: 'markDone',
      decidedBy: 'sre',
      reason: 'checked',
      result: { cancelled: true },
    });
    expect(f.missing()).toEqual([]);
    await expect(f.decideHeldTool(heldCall('order.cancel', 2, 3))).resolves.toBeNull();
    f.beginTurn(2);
    await expect(f.decideHeldTool(heldCall('order.cancel', 2, 1))).resolves.toBeNull();
    expect(f.missing()).toEqual([{ kind: 'operator', what: 'order.cancel call 2 hold 1' }]);
  });
});
