/**
 * What the embedded dev server holds per closed run
 * (`NODE_OPTIONS=--expose-gc npx tsx scripts/devserver-memory.ts [--seed-turns] [runs] [journal directory]`):
 * runs `runs` turn-shaped workflows (8 activities handing a 3 KB payload along, ~50 events, ~50 KB of
 * history, like a conversation turn) against an in-process server with a journal, then prints what the
 * retained runs cost: process memory per run, the bytes behind each part of a run's state, journal
 * bytes per run, and the time a restart takes to load them. `--seed-turns` runs the seed conversations' real turns
 * instead (bench/seed-turn-driver.ts; needs PostgreSQL, DATABASE_URL as for the tests): what a user running them gets.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { measureRetainedRuns, type RetainedRunCosts } from '../bench/devserver-memory';
import { seedTurnDriver } from '../bench/seed-turn-driver';

function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

function print(label: string, costs: RetainedRunCosts): void {
  const rows: [string, string][] = [
    ['runs', String(costs.runs)],
    ['events per run', costs.eventsPerRun.toFixed(1)],
    ['history per run (encoded)', kib(costs.historyBytesPerRun)],
    ['held per run: V8 heap', kib(costs.heldHeapPerRun)],
    ['held per run: external (Buffers)', kib(costs.heldExternalPerRun)],
    ['  ArrayBuffers behind encoded history', kib(costs.encodedBackingPerRun)],
    ['  ArrayBuffers behind other Buffers of a run', kib(costs.otherBackingPerRun)],
    ['process RSS growth per run (server + worker)', kib(costs.rssPerRun)],
    ['journal appended per run: events', kib(costs.journalEventsPerRun)],
    ['journal appended per run: run snapshots', kib(costs.journalSnapshotsPerRun)],
    ['journal per run after compaction', kib(costs.compactedJournalPerRun)],
    ['restart: start time', `${costs.restartMs.toFixed(0)} ms`],
    ['restart: heap + external per loaded run', kib(costs.restartHeldPerRun)],
  ];
  console.log(`\n${label}`);
  for (const [name, value] of rows) console.log(`  ${name.padEnd(52)} ${value}`);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const seedTurns = args.includes('--seed-turns');
  const [runsArgument, kept] = args.filter((a) => a !== '--seed-turns');
  const runs = Number(runsArgument ?? 400);
  // A directory given after the run count keeps the journal for a look afterwards.
  const directory = kept ?? fs.mkdtempSync(path.join(os.tmpdir(), 'convengine-devserver-memory-'));
  try {
    const costs = await measureRetainedRuns(runs, directory, seedTurns ? seedTurnDriver : undefined);
    print(`dev server, closed runs retained (${seedTurns ? 'seed conversation turns' : 'turn-shaped runs'})`, costs);
  } finally {
    if (!kept) fs.rmSync(directory, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  }
);
