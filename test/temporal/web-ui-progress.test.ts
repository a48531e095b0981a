/**
 * Issue #21, item 4, in the real Temporal Web UI: a running turn's current details — the latest
 * progress message (ce_verbose) its steps published — are on the workflow's page while it runs.
 * Runs in `npm run test:temporal`; `UPDATE_SCREENSHOTS=1` also writes
 * docs/images/temporal-ui-current-details.png.
 */
import { copyFileSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { verbose } from '../../db/seed/builders';
import { answer, callTool, orderConfig } from '../support/order-config';
import { WorkflowHarness } from '../support/workflow-harness';

const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOT = join(__dirname, '..', '..', 'docs', 'images', 'temporal-ui-current-details.png');
const MESSAGE = 'Checking order ORD-7017 with the order service…';

let h: WorkflowHarness;
let browser: Browser;

jest.setTimeout(180_000);

function uiUrl(): string {
  const url = process.env.TEMPORAL_UI_URL;
  if (!url) throw new Error('TEMPORAL_UI_URL is not set: run this file with `npm run test:temporal`');
  return url;
}

beforeAll(async () => {
  h = await WorkflowHarness.start();
  const rows = orderConfig();
  await h.mcp.configure({
    ...rows,
    verboses: [
      verbose({
        verboseId: 1,
        intentCode: 'ORDER_DIAGNOSTICS',
        stateCode: 'ANY',
        stepValue: 'McpToolStep',
        determinant: 'MCP_TOOL_CALL',
        toolCode: 'mock.order.status',
        message: 'Checking order {{args.orderId}} with the order service…',
      }),
    ],
  });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
});

afterAll(async () => {
  await browser?.close();
  await h?.stop();
});

test('a running planner turn shows its latest progress message as current details', async () => {
  // The answering planner call is slow, so the turn is still running when the page is read.
  h.mcp.llm.setScript([
    callTool('mock.order.status', { orderId: 'ORD-7017' }),
    { ...answer('Order submitted.'), delayMs: 20_000 },
  ]);
  const conversationId = crypto.randomUUID();
  const reply = h.send({ conversationId, message: 'Check order ORD-7017 status.' });
  const workflowId = `turn-${conversationId}-1`;
  const handle = h.client.workflow.getHandle(workflowId);
  for (let i = 0; i < 200; i++) {
    const metadata = await handle
      .query<{ currentDetails?: string }>('__temporal_workflow_metadata')
      .catch(() => ({ currentDetails: '' }));
    if (metadata.currentDetails === MESSAGE) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  await page.goto(`${uiUrl()}/namespaces/${h.temporal.namespace}/workflows/${workflowId}`);
  await page.getByText(MESSAGE).first().waitFor({ timeout: 30_000 });
  const text = await page.innerText('body');
  expect(text).toContain('Running');
  expect(text).toContain(MESSAGE);
  const shot = join(mkdtempSync(join(tmpdir(), 'ce-ui-')), 'temporal-ui-current-details.png');
  await page.screenshot({ path: shot });
  expect(statSync(shot).size).toBeGreaterThan(30_000);
  if (process.env.UPDATE_SCREENSHOTS === '1') copyFileSync(shot, SCREENSHOT);
  await page.close();
  await handle.terminate('test done');
  await reply.catch(() => undefined);
});
