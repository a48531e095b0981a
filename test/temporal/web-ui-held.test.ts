/**
 * Issue #22 in the real Temporal Web UI: a held turn shows why it waits (its current details name
 * the tool, the attempts and the last error, all of it in view), is found by TurnOutcome="HELD", and is resolved
 * from the UI's update form as docs/runbook.md says. Runs in
 * `npm run test:temporal`; `UPDATE_SCREENSHOTS=1` also writes docs/images/temporal-ui-held-turn.png.
 */
import { copyFileSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { launchChromium, screenshotTaskQueue, temporalUiUrl } from '../support/browser';
import { resolveHeldToolUpdate } from '../../workflows/messages';
import { eventually } from '../devserver/harness';
import { decisionLog } from '../support/history';
import { extracted, loanConfig, plan } from '../support/loan-config';
import { answer } from '../support/order-config';
import { WorkflowHarness } from '../support/workflow-harness';

const SCREENSHOT = join(__dirname, '..', '..', 'docs', 'images', 'temporal-ui-held-turn.png');

let h: WorkflowHarness;
let browser: Browser;
let heldTurn: string;

jest.setTimeout(180_000);

beforeAll(async () => {
  h = await WorkflowHarness.start({ taskQueue: screenshotTaskQueue() });
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

/**
 * How far the current details' text reaches below their frame: the UI sizes the frame itself (2.42.1: its body's
 * scrollHeight + 2 px, at least 100), and cuts off what does not fit.
 */
async function clippedPixels(page: Page): Promise<number> {
  const frame = page.frames().find((f) => f.url().includes('/render?'));
  if (!frame) throw new Error('no frame renders the current details');
  const element = await frame.frameElement();
  // Until its load event the frame has no height of its own (a default 150 px).
  await eventually(async () => {
    if ((await element.getAttribute('height')) === null) throw new Error('the UI has not sized the frame yet');
  }, 10_000);
  const box = await element.boundingBox();
  if (!box) throw new Error('the current details frame is not shown');
  // The bottom of the lowest element that has text, in the frame's own coordinates.
  const textBottom = Number(
    await frame.evaluate(`Math.max(...[...document.querySelectorAll('main > *')]
      .filter((e) => e.textContent.trim() !== '').map((e) => e.getBoundingClientRect().bottom))`)
  );
  return Math.ceil(textBottom - box.height);
}

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
  expect(details).toContain(`convengine sre retry --workflow-id ${heldTurn} (or skip, fail, mark-done)`);
  expect(await clippedPixels(page)).toBeLessThanOrEqual(0);
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

test("docs/runbook.md's Web UI update form resolves the held turn: More Actions → Send an Update", async () => {
  const page = await browser.newPage({ viewport: { width: 1600, height: 1200 } });
  await page.goto(`${temporalUiUrl()}/namespaces/${h.temporal.namespace}/workflows/${heldTurn}`);
  await page.getByText('LoadOrCreateConversation').first().waitFor();
  await page.getByRole('button', { name: 'More Actions' }).click();
  await page.getByRole('menuitem', { name: 'Send an Update' }).click();
  const form = page.locator('dialog[open]').filter({ hasText: 'Send an Update' });
  // The names come from the turn's own metadata query: resolveHeldTool is one of them.
  await form.getByTestId('update-select-button').click();
  await form.getByRole('option', { name: 'resolveHeldTool' }).click();
  await form.locator('[role=textbox][contenteditable=true]').click();
  await page.keyboard.type('{"action": "skip", "decidedBy": "web-ui", "reason": "runbook check"}');
  // As the runbook says: leave the Data field first, or the first Submit only reformats the JSON.
  await page.keyboard.press('Tab');
  const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().includes('/update/resolveHeldTool'));
  await form.getByTestId('confirm-modal-button').click();
  await sent;
  await form.waitFor({ state: 'detached' });
  await h.client.workflow.getHandle(heldTurn).result();
  expect(decisionLog(await h.history(heldTurn))).toContain(
    'TOOL_HOLD_RESOLVED: tool=loan.application.submit reason=skip'
  );
  await page.close();
});
