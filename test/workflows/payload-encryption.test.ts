import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { temporalInspector } from '../../api/console/temporal-inspector';
import { decodeHistoryPayloads } from '../../api/history/decoded-history';
import { activityEntries } from '../../api/history/entries';
import { turnStory } from '../../api/history/turn-story';
import { CLAIM_CHECK_DEFAULT_THRESHOLD_BYTES } from '../../config/env';
import { engineDataConverter } from '../../db/data-converter';
import { startDevServer, type DevServer } from '../../devserver';
import { temporalApprovalQueue } from '../../api/turns/approval-queue';
import { PARKED_MEMO_KEY } from '../../workflows/messages';
import { extracted, LOAN_MESSAGE, loanConfig, plan } from '../support/loan-config';
import { answer, callTool, orderConfig } from '../support/order-config';
import { runConvengine } from '../support/run-cli';
import { WorkflowHarness } from '../support/workflow-harness';

const MESSAGE = 'Check order ORD-7017 status, my passphrase is ZEBRA-CANTALOUPE-4711.';
const PARAM = 'NOTE-PLAINTEXT-9931';
const ANSWER = 'Order shipped to Jane Q. Example.';
const SECRETS = ['ZEBRA-CANTALOUPE', PARAM, 'Jane Q. Example'];
/** In the message (and so the stack trace) of a step's error, as a driver's error can quote the user's text. */
const SETTINGS = { CLAIM_CHECK_THRESHOLD_BYTES: CLAIM_CHECK_DEFAULT_THRESHOLD_BYTES };
const HistoryProto = temporal.api.history.v1.History;
const HistoryEventProto = temporal.api.history.v1.HistoryEvent;

const latin1 = (bytes: Uint8Array) => Buffer.from(bytes).toString('latin1');
/** The user's text (message, input params, the answer) that `text` holds. */
const secretsIn = (text: string) => SECRETS.filter((secret) => text.includes(secret));

/** The bytes the dev server's journal holds: its lines, and every base64 body in them (events, snapshot buffers). */
function journalBytes(path: string): { text: string; events: temporal.api.history.v1.HistoryEvent[] } {
  const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
  const decoded: string[] = [];
  const events: temporal.api.history.v1.HistoryEvent[] = [];
  for (const line of lines) {
    JSON.parse(line, (key, value: unknown) => {
      if (key === '$b' && typeof value === 'string') decoded.push(latin1(Buffer.from(value, 'base64')));
      return value;
    });
    const record = JSON.parse(line) as { t: string; b?: string };
    if (record.t !== 'event' || !record.b) continue;
    const bytes = Buffer.from(record.b, 'base64');
    decoded.push(latin1(bytes));
    events.push(HistoryEventProto.decode(bytes));
  }
  return { text: [...lines, ...decoded].join('\n'), events };
}

describe('payload encryption (PAYLOAD_ENCRYPTION_KEYS) on a turn, embedded dev server', () => {
  const keys = [{ id: 'k1', key: randomBytes(32) }];
  const dir = mkdtempSync(join(tmpdir(), 'ce-encryption-'));
  const journal = join(dir, 'temporal-devserver.jsonl');
  let server: DevServer | undefined;
  let h: WorkflowHarness | undefined;
  beforeAll(async () => {
    server = await startDevServer({ port: 0, persistPath: journal });
    const temporalServer = { address: server.address, namespace: server.namespace, stop: async () => undefined };
    h = await WorkflowHarness.start({
      temporal: temporalServer,
      payloadEncryptionKeys: keys,
    });
  });
  afterAll(async () => {
    await h?.stop();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("keeps a parked turn's call encrypted in its memo; the approvers' queue and the console read it", async () => {
    const harness = h as WorkflowHarness;
    await harness.mcp.configure(loanConfig({ submitNeedsApproval: true }));
    const customerId = 'CUST-7741';
    harness.mcp.llm.setScript([extracted(customerId), plan('loan.application.submit', customerId), answer('Done.')]);
    const parked = await harness.send({ message: LOAN_MESSAGE });
    if (parked.kind !== 'AWAITING_APPROVAL') throw new Error(`expected a parked turn, got ${parked.kind}`);
    const { workflowId } = parked.ref;

    const memos = (await harness.history(workflowId)).flatMap((e) => {
      const memo = e.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.[PARKED_MEMO_KEY];
      return memo ? [memo] : [];
    });
    expect(memos).toHaveLength(1);
    expect(Buffer.from(memos[0]?.metadata?.['encoding'] ?? []).toString()).toBe('binary/encrypted');
    expect(latin1(memos[0]?.data ?? new Uint8Array())).not.toContain(customerId);

    const { turns } = await temporalApprovalQueue(harness.client, harness.taskQueue).list({ limit: 100 });
    const listed = turns.find((t) => t.workflowId === workflowId);
    expect(listed?.approval).toMatchObject({ toolCode: 'loan.application.submit' });
    const pending = await temporalInspector(harness.client, harness.taskQueue).pendingApproval(workflowId);
    expect(pending).toMatchObject({ toolCode: 'loan.application.submit', args: { customerId } });
    const { conversationId, turnNumber } = parked.ref;
    await harness.gateway().decideApproval(conversationId, turnNumber, { decision: 'reject' });
  });

  it('keeps user text out of history and journal, completes the turn, and the console reads it decrypted', async () => {
    const harness = h as WorkflowHarness;
    await harness.mcp.configure(orderConfig());
    harness.mcp.llm.setScript([callTool('mock.order.status', { orderId: 'ORD-7017' }), answer(ANSWER)]);
    const reply = await harness.send({ message: MESSAGE, inputParams: { customerNote: PARAM } });
    if (reply.kind !== 'COMPLETED') throw new Error(`expected a completed turn, got ${reply.kind}`);
    expect(reply.result).toMatchObject({ state: 'COMPLETED', outcome: 'ANSWERED' });
    const { workflowId } = reply.ref;

    // History as Temporal stores it (what `temporal workflow show` and the Web UI read): ciphertext only.
    const stored = await harness.history(workflowId);
    const storedText = latin1(HistoryProto.encode({ events: stored }).finish());
    expect(storedText).toContain('binary/encrypted');
    expect(secretsIn(storedText)).toEqual([]);
    // Step summaries are payloads too (the Web UI shows them encrypted).
    expect(storedText).not.toContain('McpToolCall: mock.order.status');

    // The console's inspector decrypts it: the turn's input carries the message and params.
    const read = await temporalInspector(harness.client, harness.taskQueue).history(workflowId);
    const story = turnStory(read?.events ?? []);
    expect(story.status).toBe('COMPLETED');
    expect(secretsIn(JSON.stringify(story))).toEqual(['ZEBRA-CANTALOUPE', 'Jane Q. Example']);
    expect(secretsIn(JSON.stringify(activityEntries(read?.events ?? [])))).toEqual(SECRETS);

    // So does `convengine history` with the keys; without them it fails and says why.
    const keyText = keys.map((k) => `${k.id}:${k.key.toString('base64')}`).join(',');
    const cli = (extra: Record<string, string | undefined>) =>
      runConvengine(['history', workflowId, '--address', harness.temporal.address], {
        TEMPORAL_NAMESPACE: harness.temporal.namespace,
        TEMPORAL_TASK_QUEUE: harness.taskQueue,
        DATABASE_URL: undefined,
        ...extra,
      });
    const shown = await cli({ PAYLOAD_ENCRYPTION_KEYS: keyText });
    expect(shown).toMatchObject({ code: 0, stderr: '' });
    expect(shown.stdout).toContain('McpToolCall — McpToolCall: mock.order.status (call 1');
    expect(shown.stdout).toContain('workflow COMPLETED');
    const refused = await cli({ PAYLOAD_ENCRYPTION_KEYS: undefined });
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toContain('payload is encrypted under key id "k1", and PAYLOAD_ENCRYPTION_KEYS is unset');

    // An API without the key says so, typed, and shows no ciphertext as a value.
    const keyless = new Client({
      connection: harness.client.connection,
      namespace: harness.temporal.namespace,
      dataConverter: engineDataConverter({ ...SETTINGS, PAYLOAD_ENCRYPTION_KEYS: undefined }),
    });
    await expect(temporalInspector(keyless, harness.taskQueue).history(workflowId)).rejects.toMatchObject({
      statusCode: 500,
      code: 'PAYLOAD_KEY_UNKNOWN',
      message: expect.stringContaining('key id "k1"'),
    });

    // The dev server's journal, events and snapshots alike, holds only ciphertext; decrypted, the message is there.
    await (h as WorkflowHarness).stop();
    h = undefined;
    await server?.stop();
    server = undefined;
    const { text, events } = journalBytes(journal);
    expect(text).toContain(workflowId);
    expect(secretsIn(text)).toEqual([]);
    await decodeHistoryPayloads(
      events,
      engineDataConverter({ ...SETTINGS, PAYLOAD_ENCRYPTION_KEYS: keys }).payloadCodecs ?? []
    );
    expect(JSON.stringify(activityEntries(events))).toContain('ZEBRA-CANTALOUPE-4711');
  });
});
