import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportHistory } from '../../cli/history/json';
import { WorkflowHarness } from '../support/workflow-harness';
import { writeFixtureManifest, type FixtureEntry } from './fixture-manifest';
import { hold, type Parked } from './export-parked-histories';

/**
 * `npx tsx test/replay/export-failed-histories.ts [suffix]`: V3 turns that fail without a step failing (an
 * operator's fail on a held call), into histories/v3-failed/<name><suffix>.json, added to what is there. The
 * set holds such a turn recorded before the turn-failure-row patch (suffix `-before-failure-row`) and one
 * after it: the failure path must replay both ways.
 */
export const FAILED_SET = 'v3-failed';
const OUT = join(__dirname, 'histories', FAILED_SET);

export async function recordFailedTurns(h: WorkflowHarness): Promise<Parked[]> {
  return [await hold(h, [{ action: 'fail', reason: 'fixture: the upstream is down for the day' }], false)];
}

async function main(suffix: string): Promise<void> {
  const h = await WorkflowHarness.start();
  try {
    const failed = await recordFailedTurns(h);
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
  main(process.argv[2] ?? '').then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    }
  );
}
