/**
 * The console keeps the operator's place: a live turn's redraw keeps the audit list they opened open and their focus
 * on it; "More turns" keeps the focus on the page and says what it loaded; the token and error pages have a heading,
 * and a refused token puts the focus back on the token field, described by the refusal.
 */
import { eventually } from '../devserver/harness';
import { ConsoleBrowser } from '../support/console-browser';
import { loanConfig } from '../support/loan-config';

let c: ConsoleBrowser;

jest.setTimeout(240_000);

beforeAll(async () => {
  c = await ConsoleBrowser.start();
});

afterAll(async () => {
  await c?.stop();
  c?.h.wf.mcp.toolServer.faults.clear('/loan/applications');
});

const HOLD = { onRetriesExhausted: 'HOLD', maxAttempts: 2, initialIntervalMs: 100 } as const;

test('a live redraw with new audit rows keeps the opened audit list open and the focus on its summary', async () => {
  c.h.wf.mcp.toolServer.faults.set('/loan/applications', { failTimes: 1_000, status: 503 });
  const { turn, page } = await c.parkedLoanTurn(loanConfig({ submit: HOLD }));
  await page.locator('#held-tool').waitFor();
  const toolCall = page.locator('#timeline tr[data-type=McpToolCall] details.audits').first();
  await toolCall.locator('summary').focus();
  await page.keyboard.press('Enter');
  expect(await toolCall.getAttribute('open')).toBe('');
  const lists = await page.locator('details.audits').count();
  await page.evaluate(`window.drawn = document.querySelector('main h1')`);

  // Retried from elsewhere (the API): the call fails again and is held again, which the page follows live, redrawn
  // with the rows of the new attempt.
  const held = (await c.h.request('GET', `/api/v1/console/turns/${turn.workflowId}`)).json().heldTool;
  const retried = await c.h.request('POST', `/api/v1/console/turns/${turn.workflowId}/actions/held-retry`, {
    json: { callIndex: held.callIndex },
  });
  expect([200, 202]).toContain(retried.status);
  await eventually(async () => expect(await page.locator('details.audits').count()).toBeGreaterThan(lists), 30_000);
  expect(await page.evaluate(`window.drawn === document.querySelector('main h1')`)).toBe(false);
  expect(await toolCall.getAttribute('open')).toBe('');
  expect(await page.locator('details.audits[open]').count()).toBe(1);
  const summary = `#timeline tr[data-type=McpToolCall] details.audits summary`;
  expect(await page.evaluate(`document.activeElement === document.querySelector('${summary}')`)).toBe(true);

  await page.locator('#held-tool button:has-text("Fail turn")').click();
  await page.locator('#failed-turn').waitFor({ timeout: 60_000 });
  c.h.wf.mcp.toolServer.faults.clear('/loan/applications');
  await page.close();
});
