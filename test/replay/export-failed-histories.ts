import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { exportHistory } from '../../cli/history/json';
import { FAILED_ATTEMPT_DETAIL, FAILURE_ROWS_UNWRITTEN_DETAIL } from '../../core/turn/executor';
import { seedPacks } from '../../db/seed';
import { WorkflowHarness } from '../support/workflow-harness';
import { writeFixtureManifest, type FixtureEntry } from './fixture-manifest';
import { hold, type Parked } from './export-parked-histories';
import { resolveHeldToolUpdate } from '../../workflows/messages';
import { cancelDuringSlowToolCall, cutByWorkerStop, WRITE_ONCE } from '../support/cancelled-turn';

/**
 * `npx tsx test/replay/export-failed-histories.ts [suffix] [name…]`: V3 turns that fail without a step having written
 * their failure row, into histories/v3-failed/<name><suffix>.json, added to what is there (only the named ones, when
 * names are given): an operator's fail on a held call, and a commit whose last attempt could not store its failure
 * rows (a database outage past its window), and a turn cancelled (`temporal workflow cancel`) during a slow tool call,
 * a direct one and the planner's, and a planner's write whose only attempt a stopping worker cut, which an operator fails.
 * The set holds each recorded before the patch that has the workflow write
 * that row (suffix `-before-failure-row`, `-before-unwritten-row`) and after it: the failure path must replay both ways.
 */
export const FAILED_SET = 'v3-failed';
const OUT = join(__dirname, 'histories', FAILED_SET);

/** Set while the commit fails as the last attempt of one that met a database outage does. */
let commitRowsUnwritten = false;

/**
 * The failure of a commit's last attempt whose rows met a database still down, as the step runtime reports it
 * (activities/runtime/failure.ts). The outage itself is test/workflows/database-outage.test.ts's: here the commit
 * fails at once, for good, as that attempt would.
 */
function commitOutageFailure(): ApplicationFailure {
  return ApplicationFailure.create({
    type: 'INTERNAL',
    message: 'A database statement failed: the database could not be reached',
    nonRetryable: true,
    details: [{ [FAILED_ATTEMPT_DETAIL]: 1, [FAILURE_ROWS_UNWRITTEN_DETAIL]: true }],
  });
}

async function commitRowsLost(h: WorkflowHarness): Promise<Parked> {
  await seedPacks(h.mcp.deps.db, ['faq']);
  await h.mcp.base.store.refresh();
  commitRowsUnwritten = true;
  try {
    const reply = await h.send({ message: 'hi' });
    if (reply.kind !== 'FAILED') throw new Error(`expected a failed turn, got ${reply.kind}`);
    return { name: 'commit-rows-unwritten', workflowId: reply.ref.workflowId, turn: reply.ref.turnNumber };
  } finally {
    commitRowsUnwritten = false;
  }
}

/** `temporal workflow cancel` while a tool call is slow: the turn ends CANCELLED. */
async function cancelled(h: WorkflowHarness): Promise<Parked> {
  const { workflowId, turn } = await cancelDuringSlowToolCall(h);
  return { name: 'cancelled-in-tool-call', workflowId, turn };
}

/** The same during the planner's tool call, which the workflow took for the tool's failure before its patch. */
async function cancelledInPlannerCall(h: WorkflowHarness): Promise<Parked> {
  const { workflowId, turn } = await cancelDuringSlowToolCall(h, undefined, { planner: true });
  return { name: 'cancelled-in-planner-call', workflowId, turn };
}

/**
 * A NON_IDEMPOTENT_WRITE (ANSWER) whose only attempt a stopping worker cut (WorkerShutdown): held, its outcome unknown,
 * then failed by an operator; before the shutdown-cut-write-held patch the planner answered with the tool's failure.
 */
async function workerStopCutWrite(h: WorkflowHarness): Promise<Parked> {
  const { handle, workflowId, turn, progress } = await cutByWorkerStop(h, 5_000, { planner: true, submit: WRITE_ONCE });
  if (progress.held) {
    const decision = {
      action: 'fail' as const,
      reason: 'fixture: not applied upstream',
      callIndex: progress.held.callIndex,
    };
    await handle.executeUpdate(resolveHeldToolUpdate, { args: [decision] });
  }
  await handle.result().catch(() => undefined);
  return { name: 'worker-stop-cut-write', workflowId, turn };
}

export async function recordFailedTurns(h: WorkflowHarness): Promise<Parked[]> {
  return [
    await hold(h, [{ action: 'fail', reason: 'fixture: the upstream is down for the day' }], false),
    await commitRowsLost(h),
    await cancelled(h),
    await cancelledInPlannerCall(h),
    await workerStopCutWrite(h),
  ];
}

async function main(suffix: string, names: string[]): Promise<void> {
  const h = await WorkflowHarness.start({
    activities: (base) => ({
      ...base,
      PersistConversation: async (input) => {
        if (commitRowsUnwritten) throw commitOutageFailure();
        return base.PersistConversation(input);
      },
    }),
  });
  try {
    const failed = (await recordFailedTurns(h)).filter((f) => names.length === 0 || names.includes(f.name));
    mkdirSync(OUT, { recursive: true });
    const manifestFile = join(OUT, 'manifest.json');
    const kept: FixtureEntry[] = existsSync(manifestFile)
      ? (JSON.parse(readFileSync(manifestFile, 'utf8')) as { manifest: FixtureEntry[] }).manifest
      : [];
    const manifest = kept.filter((entry) => !failed.some((f) => entry.file === `${f.name}${suffix}.json`));
    for (const f of failed) {
      const file = `${f.name}${suffix}.json`;
      writeFileSync(join(OUT, file), exportHistory({ events: await h.history(f.workflowId) }));
      manifest.push({ file, workflowId: f.workflowId, conversation: f.name, turn: f.turn });
    }
    writeFixtureManifest(OUT, 'export-failed-histories.ts', manifest);
  } finally {
    await h.stop();
  }
}

if (require.main === module) {
  main(process.argv[2] ?? '', process.argv.slice(3)).then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    }
  );
}
