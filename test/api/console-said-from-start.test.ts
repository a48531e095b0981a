/**
 * What the user said in a turn is known from the turn's start (its workflow input), before any step writes the
 * turn's USER_INPUT row: the console shows it from then on, on the turn's page and in the conversation's turn list.
 * The turns here are started on the deployment's task queue with its worker stopped, so they stay where a turn is
 * before its first step (a turn of another queue is not the console's to show).
 */
import { turnIdFor, type TurnInput } from '../../core/turn/contracts';
import type { Payload } from '@temporalio/common';
import { isClaimReference } from '../../db/claims/codec';
import { ensureConversation } from '../../db/repositories/conversation';
import { startTurnWorkflow } from '../../api/turns/start';
import { turnsWithWhatWasSaid } from '../../api/console/turn-list';
import { ApiHarness } from '../support/api-harness';
import { fakeConsolePorts } from '../support/fake-ports';

const SAID = 'Where is my order ORD-7017?';
/** Over the claim check's 32 KiB: the turn's input is stored as a claim and history holds its reference. */
const LARGE_PARAMS = { note: 'n'.repeat(40 * 1024) };

let h: ApiHarness;

describe('the console shows what the user said from the turn start (api/console/temporal-inspector.ts)', () => {
  const conversationId = crypto.randomUUID();
  const input = (turnNumber: number, message: string, inputParams: TurnInput['inputParams']): TurnInput => ({
    conversationId,
    turnNumber,
    turnId: turnIdFor(conversationId, turnNumber),
    message,
    inputParams,
    reset: false,
    requestContext: {},
    idempotencyKey: null,
    receivedAt: new Date().toISOString(),
  });
  const started: string[] = [];

  beforeAll(async () => {
    h = await ApiHarness.start();
    await ensureConversation(h.wf.mcp.deps.db, conversationId);
    await h.wf.stopWorker();
    for (const turn of [input(1, SAID, {}), input(2, 'And ORD-7018?', LARGE_PARAMS)]) {
      const outcome = await startTurnWorkflow(h.wf.client, h.wf.taskQueue, turn);
      expect(outcome.kind).toBe('STARTED');
      started.push(turn.turnId);
    }
  });
  afterAll(async () => {
    for (const workflowId of started)
      await h?.wf.client.workflow
        .getHandle(workflowId)
        .terminate('test over')
        .catch(() => undefined);
    await h?.stop();
  });

  it("shows it on the turn's page before the turn's USER_INPUT row is written", async () => {
    const turn = (await h.request('GET', `/api/v1/console/turns/${turnIdFor(conversationId, 1)}`)).json();
    expect([turn.story.status, turn.audits, turn.userInput]).toEqual(['RUNNING', [], SAID]);
  });

  it('shows it in the turn list, a large input read through its claim', async () => {
    const list = (await h.request('GET', `/api/v1/console/conversations/${conversationId}/turns`)).json();
    expect(list.turns.map((t: { turnNumber: number; userInput: string }) => [t.turnNumber, t.userInput])).toEqual([
      [1, SAID],
      [2, 'And ORD-7018?'],
    ]);
    const { history } = await h.wf.client.workflowService.getWorkflowExecutionHistory({
      namespace: h.wf.client.options.namespace,
      execution: { workflowId: turnIdFor(conversationId, 2) },
      maximumPageSize: 1,
    });
    const payload = history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    expect(isClaimReference(payload as Payload)).toBe(true);
    const large = (await h.request('GET', `/api/v1/console/turns/${turnIdFor(conversationId, 2)}`)).json();
    expect(large.userInput).toBe('And ORD-7018?');
  });
});

describe('the turn list reads start events only for turns nothing else says (api/console/turn-list.ts)', () => {
  it('asks for the runs without committed text or USER_INPUT row, and for nothing when every turn has one', async () => {
    const summary = (turnNumber: number) => ({
      workflowId: `turn-c-${turnNumber}`,
      runId: `run-${turnNumber}`,
      turnNumber,
      status: 'COMPLETED',
      outcome: null,
      startedAt: '2026-01-01T00:00:00.000Z',
      closedAt: null,
      earlierRuns: [],
    });
    const asked: string[][] = [];
    const ports = fakeConsolePorts({
      userInputs: async () => new Map([[2, [{ runId: 'run-2', text: 'from its row' }]]]),
      inspector: {
        startMessages: async (runs) => {
          asked.push(runs.map((r) => r.runId));
          return new Map(runs.map((r) => [r.runId, `started ${r.runId}`]));
        },
      },
    });
    const history = [{ turnNumber: 1, userInput: 'committed', assistantOutput: null, createdAt: '' }];
    const turns = await turnsWithWhatWasSaid(ports, 'c', [1, 2, 3].map(summary), history);
    expect(turns.map((t) => t.userInput)).toEqual(['committed', 'from its row', 'started run-3']);
    expect(asked).toEqual([['run-3']]);
    await turnsWithWhatWasSaid(ports, 'c', [1, 2].map(summary), history);
    expect(asked).toHaveLength(1);
  });
});
