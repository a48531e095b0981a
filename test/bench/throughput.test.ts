import { setTimeout as delay } from 'node:timers/promises';
import { sustainedRun, type SustainedLoad } from '../../bench/throughput';
import { demoMix, type StackCpu, type Transport } from '../../bench/turns';
import type { TurnResult } from '../../core/turn/contracts';
import type { DemoTurn } from '../../demo/conversations';

interface Call {
  conversationId: string;
  message: string;
}

/** A transport that answers every turn after `ms`, off-script, and records what it was sent. */
function fakeTransport(ms: number, failOnCall?: number): { send: Transport; calls: Call[] } {
  const calls: Call[] = [];
  const send: Transport = async (conversationId: string, turn: DemoTurn) => {
    calls.push({ conversationId, message: turn.message });
    if (calls.length === failOnCall) throw new Error('turn failed');
    await delay(ms);
    const result = { payload: { type: 'TEXT', value: 'fake' }, intent: 'X', state: 'Y' } as unknown as TurnResult;
    return { result, workflowId: null, activities: 1 };
  };
  return { send, calls };
}

/** A CPU reading that grows by 10 ms per process each time it is read. */
function countingCpu(): () => StackCpu {
  let reads = 0;
  return () => {
    reads++;
    return { worker: reads * 10, server: reads * 10, client: reads * 10, postgres: reads * 10 };
  };
}

const load = (concurrency: number): SustainedLoad => ({ concurrency, warmMs: 60, windowMs: 300, cpu: countingCpu() });

describe('throughput under sustained load (bench/throughput.ts)', () => {
  it('counts only the turns that ended inside the window, and the CPU spent in it', async () => {
    const { send, calls } = fakeTransport(10);
    const run = await sustainedRun(send, load(2));
    expect(run.counted.length).toBeGreaterThan(0);
    for (const sample of run.counted) {
      expect(sample.endedAt).toBeGreaterThanOrEqual(run.window.from);
      expect(sample.endedAt).toBeLessThan(run.window.to);
    }
    // Turns ran before the window opened (the warm-up) and are not counted.
    expect(calls.length).toBeGreaterThan(run.counted.length);
    expect(run.turnsPerSecond).toBeCloseTo(run.counted.length / ((run.window.to - run.window.from) / 1000), 6);
    // The CPU reading grew by 10 ms per process between the window's two reads.
    expect(run.perTurn.worker).toBeCloseTo(10 / run.counted.length, 6);
    expect(run.totalPerTurn).toBeCloseTo(40 / run.counted.length, 6);
    expect(run.offScript).toBeGreaterThanOrEqual(run.counted.length);
  });

  it('keeps every lane busy with conversation after conversation, each in script order, and then stops', async () => {
    const { send, calls } = fakeTransport(5);
    await sustainedRun(send, load(3));
    const byConversation = new Map<string, string[]>();
    for (const call of calls)
      byConversation.set(call.conversationId, [...(byConversation.get(call.conversationId) ?? []), call.message]);
    expect(byConversation.size).toBeGreaterThan(3);
    const scripts = demoMix(2).map((conversation) => conversation.turns.map((turn) => turn.message));
    const scriptOf = (messages: string[]) => scripts.findIndex((script) => messages[0] === script[0]);
    for (const messages of byConversation.values()) {
      const script = scripts[scriptOf(messages)];
      expect(script?.slice(0, messages.length)).toEqual(messages);
    }
    // Both conversations of the demo mix ran.
    expect(new Set([...byConversation.values()].map(scriptOf))).toEqual(new Set([0, 1]));
    const sent = calls.length;
    await delay(50);
    expect(calls.length).toBe(sent);
  });

  it('stops every lane when a turn fails, and reports the failure', async () => {
    const { send, calls } = fakeTransport(5, 4);
    await expect(sustainedRun(send, load(2))).rejects.toThrow('turn failed');
    const sent = calls.length;
    await delay(50);
    expect(calls.length).toBe(sent);
    expect(sent).toBeLessThanOrEqual(5);
  });
});
