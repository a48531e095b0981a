import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportHistory } from '../../cli/history/json';
import { callTool, orderConfig } from '../support/order-config';
import { WorkflowHarness } from '../support/workflow-harness';
import { writeFixtureManifest, type FixtureEntry } from './fixture-manifest';

/**
 * `npx tsx test/replay/export-direct-repeat-histories.ts <suffix>`: a V3 turn whose direct tool call fails (the
 * upstream answers 429 with a Retry-After of an hour, far above max_backoff_ms) and whose planner then asks for the
 * same call, into histories/v3-direct-repeat/direct-call-repeated<suffix>.json. Recorded before the
 * planner-refuses-failed-direct-call patch (suffix `-before-refusal`: the planner's call is sent, an McpToolCall) and
 * with it (no suffix: refused, no McpToolCall): the turn must replay both ways. Each run keeps the other's entry.
 */
export const DIRECT_REPEAT_SET = 'v3-direct-repeat';
const OUT = join(__dirname, 'histories', DIRECT_REPEAT_SET);
const NAME = 'direct-call-repeated';

async function main(suffix: string): Promise<void> {
  const h = await WorkflowHarness.start();
  try {
    await h.mcp.configure(orderConfig());
    h.mcp.toolServer.faults.set('/orders/status', { failTimes: 1_000, status: 429, retryAfter: '3600' });
    h.mcp.llm.setScript([callTool('mock.order.status', { orderId: 'ORD-7017' })]);
    const tool_request = { tool_code: 'mock.order.status', args: { orderId: 'ORD-7017' } };
    const reply = await h.send({ message: 'Check order ORD-7017 status.', inputParams: { tool_request } });
    if (reply.kind !== 'COMPLETED') throw new Error(`expected a completed turn, got ${reply.kind}`);
    mkdirSync(OUT, { recursive: true });
    const file = `${NAME}${suffix}.json`;
    writeFileSync(join(OUT, file), exportHistory({ events: await h.history(reply.ref.workflowId) }));
    const manifestFile = join(OUT, 'manifest.json');
    const kept: FixtureEntry[] = existsSync(manifestFile)
      ? (JSON.parse(readFileSync(manifestFile, 'utf8')) as { manifest: FixtureEntry[] }).manifest
      : [];
    const manifest = kept.filter((entry) => entry.file !== file);
    manifest.push({ file, workflowId: reply.ref.workflowId, conversation: NAME, turn: 1 });
    writeFixtureManifest(OUT, 'export-direct-repeat-histories.ts', manifest);
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
