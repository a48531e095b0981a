/**
 * The turn console as an operator uses it, in headless Chromium: a live turn page keeps what is typed and the
 * outcome of an action across its redraws; the hash keeps searched text whole; long text wraps; a wrong filter
 * keeps the form; a parked turn's conversation shows what the user said, and the list shows it AWAITING_APPROVAL.
 */
import { type Page } from 'playwright-core';
import { CONSOLE_CONVERSATION_STATUSES } from '../../api/console/ports';
import { eventually } from '../devserver/harness';
import {
  ConsoleBrowser,
  countRedraws,
  LOAN_MESSAGE,
  rewriteTurnReads,
  shot,
  SUBMIT_PATH,
} from '../support/console-browser';
import { loanConfig } from '../support/loan-config';
import { answer, callTool, orderConfig } from '../support/order-config';

const c = ConsoleBrowser.forFile(180_000);

const scrollWidth = async (page: Page) => Number(await page.evaluate('document.documentElement.scrollWidth'));

const reversed = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).reverse());
const reasonValue = (page: Page) => page.inputValue('#pending-approval input[name=reason]');
const focusedField = (page: Page) => page.evaluate("document.activeElement?.getAttribute('name')");

test('a live turn page keeps a reason being typed: same turn in another key order, or a real change', async () => {
  const { turn, page } = await c.parkedLoanTurn(loanConfig({ submitNeedsApproval: true }));
  await page.locator('#pending-approval').waitFor();
  const reads = await rewriteTurnReads(page, (t, read) => {
    if (read % 2 === 0) t.story.searchAttributes = reversed(t.story.searchAttributes);
  });
  const redraws = await countRedraws(page);
  const reason = 'r'.repeat(2_000);
  await page.fill('#pending-approval input[name=reason]', reason);
  // The page re-reads every 3 s: three reads, in two key orders.
  await eventually(async () => expect(reads()).toBeGreaterThanOrEqual(3), 15_000);
  expect(await redraws()).toBe(0);

  // Something really changed: the page redraws, and the reason and the focus stay where they were.
  await rewriteTurnReads(page, (t, read) => (t.story.eventCount += read));
  await page.focus('#pending-approval input[name=reason]');
  await eventually(async () => expect(await redraws()).toBeGreaterThanOrEqual(2), 15_000);
  expect(await reasonValue(page)).toBe(reason);
  expect(await focusedField(page)).toBe('reason');
  await page.unroute('**/api/v1/console/turns/*');
  await page.click('#pending-approval button:has-text("Approve")');
  await page.locator('h1:has-text("ANSWERED")').waitFor();
  expect((await c.operatorActions(turn.conversationId)).map((a) => a.payload)).toEqual([
    expect.objectContaining({ action: 'approve', reason, result: 'DONE' }),
  ]);
  await page.close();
});

test("an action's outcome stays on the page across the redraw its audit row causes, until dismissed", async () => {
  const { turn, page } = await c.heldLoanTurn();
  const held = page.locator('#held-tool');
  const redraws = await countRedraws(page);
  await held.locator('textarea[name=result]').fill('42');
  await held.locator('button:has-text("Mark done")').click();
  // The refused action's OPERATOR_ACTION row changes the turn: wait for the redraw that re-reads it.
  await eventually(async () => expect(await c.operatorActions(turn.conversationId)).toHaveLength(1));
  await eventually(async () => expect(await redraws()).toBeGreaterThan(0));
  await page.waitForTimeout(1_000);
  const refused = page.locator('#action-outcome [role=alert]');
  expect(await refused.innerText()).toContain('RESULT_INVALID');
  expect(await page.innerText('#action-outcome')).toContain('held-mark-done failed');
  await shot(page, 'action-refused');
  await page.click('#action-outcome button:has-text("Dismiss")');
  expect(await page.locator('#action-outcome').innerText()).toBe('');

  c.h.wf.mcp.toolServer.faults.clear(SUBMIT_PATH);
  await held.locator('button:has-text("Retry")').click();
  await page.locator('h1:has-text("ANSWERED")').waitFor({ timeout: 60_000 });
  await page.waitForTimeout(1_000);
  expect(await page.innerText('#action-outcome [role=status]')).toContain('held-retry: done');
  await page.close();
});

test('searched text with &, + and ? stays whole; a malformed address says so', async () => {
  const page = await c.open('');
  await page.locator('form.filters').waitFor();
  const text = 'R&D a+b? 50% #1';
  const searched = page.waitForRequest((r) => new URL(r.url()).pathname === '/api/v1/console/conversations');
  await page.fill('input[name=q]', text);
  await page.press('input[name=q]', 'Enter');
  expect(new URL((await searched).url()).searchParams.get('q')).toBe(text);
  await page.locator('.pager').waitFor();
  // Redrawn from the address it wrote: the field shows the text searched for.
  await page.waitForFunction(`document.querySelector('input[name=q]')?.value === ${JSON.stringify(text)}`, null, {
    timeout: 5_000,
  });

  await page.goto(`${c.h.baseUrl}/console/#/?q=%E0%A4%A`);
  await page.locator('#main [role=alert]').waitFor();
  expect(await page.innerText('#main [role=alert]')).toContain('MALFORMED_ADDRESS');
  await page.close();
});

test('a long unbroken message wraps on every page instead of widening it', async () => {
  await c.h.wf.mcp.configure(orderConfig());
  c.h.wf.mcp.llm.setScript([answer('y'.repeat(3_000))]);
  const turn = await c.send(`Check order ORD-7017 status: ${'x'.repeat(7_900)}`);
  expect(turn.status).toBe(200);
  for (const path of [`#/?q=${turn.conversationId}`, `#/conversation/${turn.conversationId}`]) {
    const page = await c.open(path, { width: 1000, height: 800 });
    await page.locator('table.list tbody tr').first().waitFor();
    expect([path, await scrollWidth(page)]).toEqual([path, 1000]);
    await page.close();
  }
  const page = await c.open(`#/turn/${turn.workflowId}`, { width: 1000, height: 800 });
  await page.locator('#timeline').waitFor();
  expect(await scrollWidth(page)).toBe(1000);
  await shot(page, 'long-message');
  await page.close();
});

test('Status is a choice of the statuses there are; a wrong one in the address keeps the form', async () => {
  const page = await c.open('#/?status=running');
  await page.locator('form.filters').waitFor();
  await page.locator('#main [role=alert]').waitFor();
  expect(await page.innerText('#main [role=alert]')).toContain('INVALID_STATUS');
  expect(await page.locator('form.filters + [role=alert]').count()).toBe(1);
  const options = await page
    .locator('select[name=status] option')
    .evaluateAll((os) => os.map((o) => o.getAttribute('value')));
  expect(options).toEqual(['', ...CONSOLE_CONVERSATION_STATUSES]);
  await page.selectOption('select[name=status]', 'RUNNING');
  await page.click('form.filters button[type=submit]');
  await page.locator('.pager').waitFor();
  expect(await page.locator('#main [role=alert]').count()).toBe(0);
  expect(await page.evaluate('location.hash')).toBe('#/?status=RUNNING');
  await page.close();
});

test('a conversation whose turn awaits an approval is listed, and found by the filter, as AWAITING_APPROVAL', async () => {
  const { turn, page } = await c.parkedLoanTurn(loanConfig({ submitNeedsApproval: true }));
  await page.close();
  const list = await c.open('#/');
  await list.selectOption('select[name=status]', 'AWAITING_APPROVAL');
  await list.click('form.filters button[type=submit]');
  const row = list.locator('#conversations tbody tr', { hasText: turn.conversationId });
  await row.waitFor();
  expect(await list.evaluate('location.hash')).toBe('#/?status=AWAITING_APPROVAL');
  expect(await row.locator('.badge').innerText()).toBe('AWAITING_APPROVAL');
  const statuses = await list.locator('#conversations tbody .badge').allInnerTexts();
  expect(new Set(statuses)).toEqual(new Set(['AWAITING_APPROVAL']));
  await list.close();
});

test("a parked turn's conversation shows what the user said, as its turn page does", async () => {
  const { turn, page } = await c.parkedLoanTurn(loanConfig({ submitNeedsApproval: true }));
  await page.close();
  const turns = (await c.h.request('GET', `/api/v1/console/conversations/${turn.conversationId}/turns`)).json();
  expect(turns.turns).toEqual([expect.objectContaining({ workflowId: turn.workflowId, userInput: LOAN_MESSAGE })]);
  const conversation = await c.open(`#/conversation/${turn.conversationId}`);
  await conversation.locator('#turns tbody tr').waitFor();
  expect(await conversation.innerText('#turns tbody tr')).toContain(LOAN_MESSAGE);
  await conversation.close();
});

test('a failed message the next message superseded stays listed, and its turn page says so', async () => {
  const failedMessage = 'Check order ORD-7017 status, the failing one.';
  const script = () => [callTool('mock.order.status', { orderId: 'ORD-7017' }), answer('Order submitted.')];
  const rows = orderConfig();
  await c.h.wf.mcp.configure({ ...rows, responses: (rows.responses ?? []).filter((r) => r.stateCode !== 'COMPLETED') });
  c.h.wf.mcp.llm.setScript(script());
  const failed = await c.send(failedMessage);
  expect(failed.status).toBe(500);
  await c.h.wf.mcp.configure(orderConfig());
  c.h.wf.mcp.llm.setScript(script());
  const next = await c.send('Check order ORD-7017 status again.', failed.conversationId);
  expect([next.status, next.workflowId]).toEqual([200, failed.workflowId]);

  const conversation = await c.open(`#/conversation/${failed.conversationId}`);
  const superseded = conversation.locator('#turns tbody tr.earlier-run.superseded');
  await superseded.waitFor();
  expect(await superseded.innerText()).toContain('failed message, superseded');
  expect(await superseded.innerText()).toContain(failedMessage);
  expect(await superseded.innerText()).toContain('FAILED');
  await conversation.close();

  const page = await c.openTurn(failed.workflowId);
  const panel = page.locator('#earlier-run-audits .superseded-run');
  expect(await panel.innerText()).toContain('A failed earlier message, superseded');
  expect(await panel.innerText()).toContain(failedMessage);
  expect(await page.innerText('#earlier-run-audits')).not.toContain('the turn was run again');
  expect(await page.innerText('.exchange')).toContain('Check order ORD-7017 status again.');
  await page.close();
});
