/**
 * Issue #22 in the real Temporal Web UI: a held turn shows why it waits (its current details name
 * the tool, the attempts and the last error) and is found by TurnOutcome="HELD". Runs in
 * `npm run test:temporal`; `UPDATE_SCREENSHOTS=1` also writes docs/images/temporal-ui-held-turn.png.
 */
import { copyFileSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser } from 'playwright-core';
import { launchChromium, temporalUiUrl } from '../support/browser';
import { resolveHeldToolUpdate } from '../../workflows/messages';
import { eventually } from '../devserver/harness';
import { extracted, loanConfig, plan } from '../support/loan-config';
import { answer } from '../support/order-config';
import { WorkflowHarness } from '../support/workflow-harness';

const SCREENSHOT = join(__dirname, '..', '..', 'docs', 'images', 'temporal-ui-held-turn.png');

let h: WorkflowHarness;
let browser: Browser;
let heldTurn: string;

jest.setTimeout(180_000);

beforeAll(async () => {
  h = await WorkflowHarness.start();
  await h.mcp.configure(loanConfig({ submit: { onRetriesExhausted: 'HOLD', maxAttempts: 2, initialIntervalMs: 100 } }));
  h.mcp.llm.setScript([
    extracted('CUST-1001'),
    plan('loan.credit.rating.check', 'CUST-1001'),
    plan('loan.application.submit', 'CUST-1001'),
    answer('Submitted LA-90311.'),
  ]);
  h.mcp.toolServer.faults.set('/loan/applications', { failTimes: 1_000, status: 503 });
  const reply = await h.send({ message: 'Apply loan for customer CUST-1001, amount 350000 for 36 months.' });
  if (reply.kind !== 'HELD') throw new Error(`expected a held turn, got ${reply.kind}`);
  heldTurn = reply.ref.workflowId;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  h?.mcp.toolServer.faults.clear();
  await h?.client.workflow
    .getHandle(heldTurn)
    .executeUpdate(resolveHeldToolUpdate, { args: [{ action: 'skip', decidedBy: 'web-ui-test' }] })
    .catch(() => undefined);
  await h?.stop();
});

test('a held turn shows its tool, attempts and last error as current details, and is listed as HELD', async () => {
  const page = await browser.newPage({ viewport: { width: 1600, height: 1400 } });
  await page.goto(`${temporalUiUrl()}/namespaces/${h.temporal.namespace}/workflows/${heldTurn}`);
  await page.getByText('LoadOrCreateConversation').first().waitFor();
  await page.getByText('Loading...').waitFor({ state: 'hidden' });
  // The UI reads current details with the __temporal_workflow_metadata query, on its User Metadata tab.
  await page.getByText('User Metadata', { exact: true }).first().click();
  await page.getByText('Current Details', { exact: true }).first().waitFor();
  // Current details are markdown the UI renders in a frame of their own.
  const details = await eventually(async () => {
    const texts = await Promise.all(page.frames().map((f) => f.innerText('body').catch(() => '')));
    const found = texts.find((t) => t.includes('Held for an operator'));
    if (!found) throw new Error('no frame shows the current details yet');
    return found;
  }, 30_000);
  expect(details).toContain('loan.application.submit (call 2, IDEMPOTENT_WRITE)');
  expect(details).toContain('failed in 2 activity attempt(s); the last one: TOOL_HTTP_ERROR');
  expect(await page.innerText('body')).toContain('McpToolHold: loan.application.submit (call 2) held');
  const shot = join(mkdtempSync(join(tmpdir(), 'ce-ui-')), 'temporal-ui-held-turn.png');
  await page.screenshot({ path: shot });
  expect(statSync(shot).size).toBeGreaterThan(50_000);
  if (process.env.UPDATE_SCREENSHOTS === '1') copyFileSync(shot, SCREENSHOT);

  const query = encodeURIComponent('TurnOutcome="HELD"');
  await eventually(async () => {
    await page.goto(`${temporalUiUrl()}/namespaces/${h.temporal.namespace}/workflows?query=${query}`);
    await page.getByText(heldTurn).first().waitFor({ timeout: 5_000 });
  }, 30_000);
  await page.close();
});
