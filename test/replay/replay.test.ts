import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { importHistory } from '../../cli/history/json';
import { testWorkflowBundle } from '../support/workflow-bundle';

/** conversationTurn (v1) histories, recorded before V2, and conversationTurnV2 ones (v2/). */
const DIRS = [join(__dirname, 'histories'), join(__dirname, 'histories', 'v2')];

function fixturesIn(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json') && f !== 'manifest.json')
    .sort()
    .map((f) => (dir === DIRS[0] ? f : `v2/${f}`));
}

const fixtures = DIRS.flatMap(fixturesIn);

function load(file: string) {
  const dir = file.startsWith('v2/') ? (DIRS[1] as string) : (DIRS[0] as string);
  const name = file.replace(/^v2\//, '');
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
    manifest: { file: string; workflowId: string }[];
  };
  const entry = manifest.manifest.find((m) => m.file === name);
  if (!entry) throw new Error(`${file} is not in its manifest.json`);
  return { workflowId: entry.workflowId, history: importHistory(readFileSync(join(dir, name), 'utf8')) };
}

const quiet = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

describe('replay of committed turn histories (issue #6 item 10)', () => {
  it('has the seed conversation fixtures', () => {
    expect(fixtures).toEqual(
      expect.arrayContaining(['loan-confirmation-turn3.json', 'move-connections-turn2.json', 'faq-turn1.json'])
    );
    expect(fixtures).toEqual(
      expect.arrayContaining(['v2/loan-confirmation-turn3.json', 'v2/move-connections-turn2.json', 'v2/faq-turn1.json'])
    );
  });

  it.each(fixtures)('replays %s with the current workflow code', async (file) => {
    const { workflowId, history } = load(file);
    await expect(
      Worker.runReplayHistory({ workflowBundle: await testWorkflowBundle(), replayName: file }, history, workflowId)
    ).resolves.toBeUndefined();
  });

  it.each(['loan-confirmation-turn3.json', 'v2/loan-confirmation-turn3.json'])(
    'fails the replay of %s when the workflow is changed in a non-deterministic way',
    async (file) => {
      const changed = await bundleWorkflowCode({ workflowsPath: join(__dirname, 'changed-workflow'), logger: quiet });
      const { workflowId, history } = load(file);
      await expect(
        Worker.runReplayHistory({ workflowBundle: changed, replayName: 'changed' }, history, workflowId)
      ).rejects.toBeInstanceOf(DeterminismViolationError);
    }
  );
});
