/**
 * Issue #21, item 4, in the real Temporal Web UI: a running turn's current details — the latest
 * progress message (ce_verbose) its steps published — are on the workflow's page while it runs.
 * Runs in `npm run test:temporal`; `UPDATE_SCREENSHOTS=1` also writes
 * docs/images/temporal-ui-current-details.png.
 */
import { copyFileSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser } from 'playwright-core';
import { launchChromium, screenshotTaskQueue, temporalUiUrl } from '../support/browser';
import { verbose } from '../../db/seed/builders';
import { extracted, loanConfig, plan } from '../support/loan-config';
import { WorkflowHarness } from '../support/workflow-harness';

const SCREENSHOT = join(__dirname, '..', '..', 'docs', 'images', 'temporal-ui-current-details.png');
const MESSAGE = 'Submitting the loan application of customer CUST-1001…';

let h: WorkflowHarness;
let browser: Browser;

jest.setTimeout(180_000);

beforeAll(async () => {
  h = await WorkflowHarness.start({ taskQueue: screenshotTaskQueue() });
  // The submit tool needs approval: the turn stays running, parked on it, with its details set.
  const rows = loanConfig({ submitNeedsApproval: true });
  await h.mcp.configure({
    ...rows,
    verboses: [
      verbose({
        verboseId: 1,
        intentCode: 'LOAN_APPLICATION',
        stateCode: 'ANY',
        stepValue: 'McpToolStep',
        determinant: 'MCP_TOOL_CALL',
        toolCode: 'loan.application.submit',
        message: 'Submitting the loan application of customer {{args.customerId}}…',
      }),
    ],
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await h?.stop();
});

test('a running planner turn, parked on an approval, shows its latest progress message as current details', async () => {
  h.mcp.llm.setScript([extracted('CUST-1001'), plan('loan.application.submit', 'CUST-1001')]);
  const conversationId = crypto.randomUUID();
  const parked = await h.send({
    conversationId,
    message: 'Apply loan for customer CUST-1001, amount 350000 for 36 months.',
  });
  expect(parked.kind).toBe('AWAITING_APPROVAL');
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
  await page.goto(`${temporalUiUrl()}/namespaces/${h.temporal.namespace}/workflows/${workflowId}`);
  await page.getByText('LoadOrCreateConversation').first().waitFor();
  // The UI reads current details with the __temporal_workflow_metadata query, under User Metadata.
  await page.getByText('User Metadata', { exact: true }).first().click();
  await page.getByText('Current Details', { exact: true }).first().waitFor();
  // The details are rendered as markdown in a sandboxed frame of their own.
  let shown = '';
  for (let i = 0; i < 100 && !shown.includes(MESSAGE); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const texts = await Promise.all(page.frames().map((f) => f.innerText('body').catch(() => '')));
    shown = texts.join('\n');
  }
  expect(shown).toContain(MESSAGE);
  expect(shown).toContain('Running');
  const shot = join(mkdtempSync(join(tmpdir(), 'ce-ui-')), 'temporal-ui-current-details.png');
  await page.screenshot({ path: shot });
  expect(statSync(shot).size).toBeGreaterThan(30_000);
  if (process.env.UPDATE_SCREENSHOTS === '1') copyFileSync(shot, SCREENSHOT);
  await page.close();
  await handle.terminate('test done');
});
