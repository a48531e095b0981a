import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportHistory } from '../../cli/history/json';
import { runSeedConversations } from '../support/seed-turns';
import { WorkflowHarness } from '../support/workflow-harness';
import { writeFixtureManifest, type FixtureEntry } from './fixture-manifest';

/**
 * `npm run histories:export`: runs every seed conversation as turn workflows on the embedded dev
 * server and writes each turn's event history to test/replay/histories/, with a manifest naming
 * the commit that produced them. Re-run it whenever the workflow changes on purpose (behind a
 * patch() or a new workflow type) and commit the new fixtures, into a new set:
 * `npm run histories:export -- <set>` writes histories/<set>/ (default v3, the current workflow
 * type). Earlier sets (v1 in histories/, v2/, v2-local-first/, v2-step-runs/, v2-wide-step-runs/) stay and must keep
 * replaying (replay.test.ts lists them).
 */
const OUT = join(__dirname, 'histories', process.argv[2] ?? 'v3');

/** Example 3 and MOVE_CONNECTIONS (the seed transcripts) plus FAQ: every kind of turn, a few MB in all. */
const FIXTURE_CONVERSATIONS = ['loan-confirmation', 'move-connections', 'faq'] as const;

async function main(): Promise<void> {
  const h = await WorkflowHarness.start();
  try {
    const records = await runSeedConversations(h, [...FIXTURE_CONVERSATIONS]);
    const failed = records.filter((r) => !r.ok);
    if (failed.length > 0) throw new Error(`seed conversations failed: ${JSON.stringify(failed)}`);
    mkdirSync(OUT, { recursive: true });
    for (const file of readdirSync(OUT)) if (file.endsWith('.json')) rmSync(join(OUT, file));
    const manifest: FixtureEntry[] = [];
    for (const r of records) {
      const file = `${r.conversation}-turn${r.turn}.json`;
      writeFileSync(join(OUT, file), exportHistory({ events: await h.history(r.workflowId as string) }));
      manifest.push({ file, workflowId: r.workflowId as string, conversation: r.conversation, turn: r.turn });
    }
    writeFixtureManifest(OUT, 'npm run histories:export', manifest);
  } finally {
    await h.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  }
);
