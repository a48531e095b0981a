import { replyTextOf } from '../../demo/in-process-send';
import { runDemoConversations } from '../../demo/conversations';
import type { DemoSend, DemoTurnRecord } from '../../demo/demo-runner';
import { demoLlmScript } from '../../demo/recorded-llm';
import { seedPacks } from '../../db/seed';
import type { WorkflowHarness } from './workflow-harness';

/** The demo transport through the real Temporal gateway (what the HTTP API does per request). */
export function gatewaySend(h: WorkflowHarness): DemoSend {
  return async (conversationId, turn) => {
    const reply = await h.send({
      ...(conversationId ? { conversationId } : {}),
      message: turn.message,
      inputParams: turn.inputParams ?? {},
    });
    if (reply.kind !== 'COMPLETED') throw new Error(`turn did not complete: ${JSON.stringify(reply)}`);
    return {
      conversationId: reply.ref.conversationId,
      reply: replyTextOf(reply.result.payload),
      intent: reply.result.intent,
      state: reply.result.state,
      outcome: reply.result.outcome,
      workflowId: reply.ref.workflowId,
    };
  };
}

/** Seeds every pack, loads the demo recordings, and runs the named seed conversations as turn workflows. */
export async function runSeedConversations(h: WorkflowHarness, only: string[]): Promise<DemoTurnRecord[]> {
  await seedPacks(h.mcp.deps.db, ['all']);
  await h.mcp.base.store.refresh();
  h.mcp.llm.setScript(demoLlmScript());
  return runDemoConversations(gatewaySend(h), { only });
}
