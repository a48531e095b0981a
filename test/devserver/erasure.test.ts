/**
 * A run deleted by DeleteWorkflowExecution (an operator erasing a conversation) leaves the embedded dev server's file
 * at the next housekeeping: the file is append-only between compactions, so until then its events are on disk.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { freePort } from '../../db/embedded/ports';
import { startDevServer } from '../../devserver';
import { eventually } from './harness';

jest.setTimeout(60_000);

/** Whether the file holds the text, plainly or inside a base64 run (events are stored as base64 protobuf). */
function journalHolds(file: string, text: string): boolean {
  const content = fs.readFileSync(file, 'utf8');
  if (content.includes(text)) return true;
  return (content.match(/[A-Za-z0-9+/]{16,}={0,2}/g) ?? []).some((run) =>
    Buffer.from(run, 'base64').toString('latin1').includes(text)
  );
}

test('a deleted run leaves the file at the next housekeeping, not only when the file has grown', async () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'convengine-devserver-')), 'erase.jsonl');
  const instance = await startDevServer({ port: await freePort(), persistPath: file });
  const connection = await Connection.connect({ address: instance.address });
  try {
    const client = new Client({ connection });
    const [erasedText, keptText] = [`erase-me-${randomUUID()}`, `keep-me-${randomUUID()}`];
    const start = (arg: string) =>
      client.workflow.start('noWorkerPolls', { taskQueue: 'nobody', workflowId: randomUUID(), args: [arg] });
    const erased = await start(erasedText);
    await start(keptText);
    await eventually(async () => expect(journalHolds(file, erasedText)).toBe(true));
    await client.workflowService.deleteWorkflowExecution({
      namespace: 'default',
      workflowExecution: { workflowId: erased.workflowId },
    });
    // Housekeeping runs every 5 s; the file is far below the size at which its growth asks for a compaction.
    await eventually(async () => expect(journalHolds(file, erasedText)).toBe(false), 15_000);
    expect(journalHolds(file, keptText)).toBe(true);
  } finally {
    await connection.close();
    await instance.stop();
  }
});
