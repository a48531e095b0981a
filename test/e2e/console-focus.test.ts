/**
 * The console keeps the operator's place: a live turn's redraw keeps the audit list they opened open and their focus
 * on it; "More turns" keeps the focus on the page and says what it loaded; the token and error pages have a heading,
 * and a refused token puts the focus back on the token field, described by the refusal.
 */
import { type Page } from 'playwright-core';
import { eventually } from '../devserver/harness';
import { ConsoleBrowser, refuseTokens } from '../support/console-browser';
import { answer, orderConfig } from '../support/order-config';

const c = ConsoleBrowser.forFile(240_000);

/** The focused element, as `TAG "text"`. */
const focused = async (page: Page) =>
  String(
    await page.evaluate(`document.activeElement.tagName + ' "' + document.activeElement.textContent.trim() + '"'`)
  );

test('a live redraw with new audit rows keeps the opened audit list open and the focus on its summary', async () => {
  const { turn, page } = await c.heldLoanTurn();
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

  await c.failHeldTurn(page);
  await page.close();
});

test('"More turns" keeps the focus on itself, then on the first turn of the last page, and says what it loaded', async () => {
  await c.h.wf.mcp.configure(orderConfig());
  c.h.wf.mcp.llm.setScript([answer('Shipped.'), answer('Shipped.'), answer('Shipped.')]);
  const first = await c.send('Check order ORD-7017 status');
  for (const _ of [2, 3]) expect((await c.send('Check order ORD-7017 status', first.conversationId)).status).toBe(200);
  const page = await c.open(`#/conversation/${first.conversationId}`);
  // A page of one turn (the API's own limit), so that three turns take three pages.
  await page.route('**/api/v1/console/conversations/*/turns*', (route) => {
    const url = new URL(route.request().url());
    url.searchParams.set('limit', '1');
    return route.continue({ url: url.toString() });
  });
  await page.reload();
  const rows = page.locator('#turns tbody tr');
  await rows.first().waitFor();
  expect(await rows.count()).toBe(1);
  await page.locator('#more-turns button').focus();
  await page.keyboard.press('Enter');
  await eventually(async () => expect(await rows.count()).toBe(2), 10_000);
  expect(await focused(page)).toBe('BUTTON "More turns"');
  expect(await page.locator('#more-turns [role=status]').innerText()).toBe('1 more turn loaded.');

  await page.keyboard.press('Enter');
  await eventually(async () => expect(await rows.count()).toBe(3), 10_000);
  expect(await focused(page)).toBe('A "Turn 3"');
  expect(await page.locator('#more-turns [role=status]').innerText()).toBe('1 more turn loaded; that is every turn.');
  expect(await page.locator('#more-turns button').isVisible()).toBe(false);
  await page.close();
});

test('the token and error pages have a heading; a refused token puts the focus on the field it describes', async () => {
  const page = await c.open('#/nowhere');
  await page.locator('main .error').waitFor();
  expect(await page.locator('main h1').innerText()).toBe('Not found');

  await page.evaluate("location.hash = '#/'");
  await page.locator('form.filters').waitFor();
  const refusal = { code: 'UNAUTHORIZED', message: 'The bearer token is not valid.' };
  await refuseTokens(page, refusal);
  await page.click('#token-button');
  expect(await page.locator('main h1').innerText()).toBe('API token');
  expect(await focused(page)).toBe('INPUT ""');
  await page.fill('input[name=token]', 'wrong');
  await page.press('input[name=token]', 'Enter');
  await page.locator('#token-refused').waitFor();
  expect(await page.locator('main h1').innerText()).toBe('API token');
  const field = 'document.querySelector("input[name=token]")';
  expect(await page.evaluate(`document.activeElement === ${field}`)).toBe(true);
  expect(await page.evaluate(`${field}.getAttribute('aria-describedby')`)).toBe('token-refused');

  // Accepted, the token form gives way to the page it was asked for, focused at its heading.
  await page.unroute('**/api/v1/console/**');
  await page.fill('input[name=token]', 'any');
  await page.press('input[name=token]', 'Enter');
  await page.locator('form.filters').waitFor();
  expect(await focused(page)).toMatch(/^H1 "Conversations/);
  await page.close();
});
