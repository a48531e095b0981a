import { DEMO_CONVERSATIONS, runDemoConversations } from '../demo/conversations';
import { formatDemoTranscript } from '../demo/demo-runner';
import { seedPacks } from '../db/seed';
import { gatewaySend } from '../test/support/seed-turns';
import { WorkflowHarness } from '../test/support/workflow-harness';
import type { RunDriver, StartRunDriver } from './devserver-memory';

/** As many callers as the soak of `convengine start` had (docs/devserver.md). */
const CALLERS = 4;

/**
 * The real turns of the seed conversations (every one in demo/conversations.ts, in turn, CALLERS at a time) on the
 * server given, as `convengine start` runs them: the turn workflow with its activities, the claim-check data converter,
 * the keyless demo model, the demo tool server, and a fresh database (on DATABASE_URL's server). `drive(n)` runs whole
 * conversations until n turns have run (a few more at most) and fails if any turn is not as the conversation expects.
 */
export const seedTurnDriver: StartRunDriver = async (server) => {
  const h = await WorkflowHarness.start({ demoModel: true, temporal: { ...server, stop: async () => undefined } });
  await seedPacks(h.mcp.deps.db, ['all']);
  await h.mcp.base.store.refresh();
  const send = gatewaySend(h);
  let next = 0;
  const drive = async (count: number): Promise<number> => {
    let turns = 0;
    const caller = async (): Promise<void> => {
      while (turns < count) {
        const conversation = DEMO_CONVERSATIONS[next++ % DEMO_CONVERSATIONS.length];
        if (!conversation) return;
        const records = await runDemoConversations(send, { conversations: [conversation] });
        turns += records.length;
        const failed = records.filter((r) => !r.ok);
        if (failed.length > 0) throw new Error(`a seed turn failed:\n${formatDemoTranscript(failed)}`);
      }
    };
    await Promise.all(Array.from({ length: CALLERS }, caller));
    return turns;
  };
  const driver: RunDriver = { drive, close: () => h.stop() };
  return driver;
};
