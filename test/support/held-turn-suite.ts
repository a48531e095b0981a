import type { TurnReply } from '../../api/ports';
import { sreCommand } from '../../cli/commands/sre';
import type { TurnActivities } from '../../core/turn/activities';
import type { ScriptEntry } from '../../scripted-llm';
import { WorkflowHarness } from './workflow-harness';
import { loadEnv } from '../../config/env';

/** The reply of a turn held for an operator (#22); anything else fails the test. */
export function held(reply: TurnReply) {
  if (reply.kind !== 'HELD') throw new Error(`expected a held turn, got ${reply.kind}`);
  return reply;
}

export interface SreRun {
  code: number;
  out: string[];
  err: string[];
}

/** `convengine sre <args>` in this process, its lines captured. */
export async function runSre(args: string[]): Promise<SreRun> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await sreCommand.run(
    args,
    { out: (l) => out.push(l), err: (l) => err.push(l), stdin: process.stdin },
    loadEnv()
  );
  return { code, out, err };
}

/**
 * The set-up the held-turn suites share, registered in the calling `describe`: one workflow harness whose
 * activities `activities` wraps; before each test the LLM script, fresh tool-server counters and faults, and
 * fresh HTTP circuit breakers (each test takes the upstream down on its own). `serverArgs()` points
 * `convengine sre` at the harness's server.
 */
export function heldTurnSuite(options: {
  activities(base: TurnActivities): TurnActivities;
  script(): readonly ScriptEntry[];
}): { harness(): WorkflowHarness; serverArgs(): string[] } {
  let started: WorkflowHarness | undefined;
  beforeAll(async () => {
    started = await WorkflowHarness.start({ activities: options.activities });
  });
  afterAll(async () => started?.stop());
  beforeEach(() => {
    const h = harness();
    h.mcp.llm.setScript(options.script());
    h.mcp.toolServer.counters.reset();
    h.mcp.toolServer.faults.clear();
    h.mcp.setHandlers({});
  });
  function harness(): WorkflowHarness {
    if (!started) throw new Error('the held-turn harness did not start');
    return started;
  }
  return {
    harness,
    serverArgs: () => harness().serverArgs(),
  };
}
