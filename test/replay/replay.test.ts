import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { importHistory } from '../../cli/history/json';
import { testWorkflowBundle } from '../support/workflow-bundle';

const DIR = join(__dirname, 'histories');
const fixtures = readdirSync(DIR)
  .filter((f) => f.endsWith('.json') && f !== 'manifest.json')
  .sort();
const manifest = JSON.parse(readFileSync(join(DIR, 'manifest.json'), 'utf8')) as {
  manifest: { file: string; workflowId: string }[];
};

function load(file: string) {
  const entry = manifest.manifest.find((m) => m.file === file);
  if (!entry) throw new Error(`${file} is not in manifest.json`);
  return { workflowId: entry.workflowId, history: importHistory(readFileSync(join(DIR, file), 'utf8')) };
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
  });

  it.each(fixtures)('replays %s with the current workflow code', async (file) => {
    const { workflowId, history } = load(file);
    await expect(
      Worker.runReplayHistory({ workflowBundle: await testWorkflowBundle(), replayName: file }, history, workflowId)
    ).resolves.toBeUndefined();
  });

  it('fails the replay when the workflow is changed in a non-deterministic way', async () => {
    const changed = await bundleWorkflowCode({ workflowsPath: join(__dirname, 'changed-workflow'), logger: quiet });
    const { workflowId, history } = load('loan-confirmation-turn3.json');
    await expect(
      Worker.runReplayHistory({ workflowBundle: changed, replayName: 'changed' }, history, workflowId)
    ).rejects.toBeInstanceOf(DeterminismViolationError);
  });
});
