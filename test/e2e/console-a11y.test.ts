/**
 * The turn console for a keyboard and a screen reader: live status announced once, not on every poll; focus kept
 * after an action and moved on navigation; a title per page; form errors on their fields, in an operator's words;
 * fields with labels; no sideways scroll at 640 px; no failed request on load.
 */
import { type Page } from 'playwright-core';
import { ConsoleBrowser } from '../support/console-browser';
import { loanConfig } from '../support/loan-config';
import { answer, orderConfig } from '../support/order-config';

const c = ConsoleBrowser.forFile(240_000);

/** Counts the nodes with id `id` inserted under #main from now on (a re-inserted live region is announced again). */
async function countInsertions(page: Page, id: string): Promise<() => Promise<number>> {
  await page.evaluate(`window.inserted = window.inserted || {}; window.inserted['${id}'] = 0;
    new MutationObserver((records) => {
      for (const record of records)
        for (const node of record.addedNodes)
          if (node.id === '${id}' || node.querySelector?.('#${id}')) window.inserted['${id}']++;
    }).observe(document.getElementById('main'), { childList: true, subtree: true });`);
  return async () => Number(await page.evaluate(`window.inserted['${id}']`));
}

/** An order turn, answered at once. */
async function answeredTurn() {
  await c.h.wf.mcp.configure(orderConfig());
  c.h.wf.mcp.llm.setScript([answer('Shipped.')]);
  return c.send('Check order ORD-7017 status');
}

/** A field's label text (its first <label>). */
const labelOf = (field: unknown) => (field as { labels: { textContent: string }[] }).labels[0]?.textContent;

/** The focused element, as `TAG#id.class "text"`. */
const focused = async (page: Page) =>
  String(
    await page.evaluate(`(() => {
      const el = document.activeElement;
      return el.tagName + '#' + el.id + '.' + el.className + ' "' + (el.textContent ?? '').trim().slice(0, 60) + '"';
    })()`)
  );

test('the live status and "Not up to date" are inserted once, not again on every 3 s poll', async () => {
  const { page } = await c.parkedLoanTurn(loanConfig({ submitNeedsApproval: true }));
  await page.locator('#pending-approval').waitFor();
  await page.locator('#live').waitFor();
  const live = await countInsertions(page, 'live');
  await page.waitForTimeout(7_000);
  expect(await live()).toBe(0);

  const error = { code: 'DATABASE_UNREACHABLE', message: 'The database is unreachable; retry later.' };
  await page.route('**/api/v1/console/turns/*', (route) =>
    route.request().method() === 'GET' ? route.fulfill({ status: 503, json: { error } }) : route.continue()
  );
  await page.locator('#refresh-failed').waitFor({ timeout: 15_000 });
  const stale = await countInsertions(page, 'refresh-failed');
  await page.waitForTimeout(7_000);
  expect(await stale()).toBe(0);
  await page.unroute('**/api/v1/console/turns/*');
  await page.locator('#live').waitFor({ timeout: 15_000 });
  await page.locator('#pending-approval button:has-text("Reject")').click();
  await page.locator('#pending-approval button:has-text("Confirm")').click();
  await page.locator('#pending-approval').waitFor({ state: 'detached', timeout: 60_000 });
  await page.close();
});

test('after Approve by keyboard the focus is on the outcome; after Dismiss on the heading', async () => {
  const { page } = await c.parkedLoanTurn(loanConfig({ submitNeedsApproval: true }));
  await page.locator('#pending-approval').waitFor();
  const reasonLabel = page.locator('#pending-approval input[name=reason]').evaluate(labelOf);
  expect(await reasonLabel).toMatch(/Reason/);
  await page.locator('#pending-approval button:has-text("Approve")').focus();
  await page.keyboard.press('Enter');
  await page.locator('#action-outcome .ok').waitFor({ timeout: 60_000 });
  await page.locator('h1:has-text("ANSWERED")').waitFor({ timeout: 60_000 });
  await page.waitForTimeout(500);
  expect(await focused(page)).toMatch(/approve: done/);
  await page.keyboard.press('Tab');
  expect(await focused(page)).toMatch(/^BUTTON.*Dismiss/);
  await page.keyboard.press('Enter');
  expect(await focused(page)).toMatch(/^H1.*Turn 1/);
  await page.close();
});

test('each view has its own title, main is no live region, and navigating focuses the heading', async () => {
  const turn = await answeredTurn();
  const page = await c.open('#/');
  await page.locator('main h1').waitFor();
  expect(await page.title()).toBe('Conversations · ConvEngine console');
  expect(await page.locator('main').getAttribute('aria-live')).toBeNull();
  await page.locator(`a[href="#/conversation/${turn.conversationId}"]`).first().click();
  await page.locator('main h1:has-text("Conversation")').waitFor();
  expect(await page.title()).toBe(`Conversation ${turn.conversationId} · ConvEngine console`);
  expect(await focused(page)).toMatch(/^H1.*Conversation/);
  await page.locator(`a[href="#/turn/${turn.workflowId}"]`).first().click();
  await page.locator('#timeline').waitFor();
  expect(await page.title()).toBe(`Turn ${turn.workflowId} · ConvEngine console`);
  expect(await focused(page)).toMatch(/^H1.*Turn 1/);
  await page.evaluate("location.hash = '#/nowhere'");
  await page.locator('main .error').waitFor();
  expect(await page.title()).toBe('Not found · ConvEngine console');
  await page.close();
});

test('a refused filter or what-if version marks its field, says why in words, and keeps the focus there', async () => {
  const turn = await answeredTurn();
  const page = await c.open('#/');
  // The API takes any code config takes as an intent or state filter (straße_zustand too); a search over 200
  // characters it refuses.
  const tooLong = 'x'.repeat(201);
  await page.locator('input[name=q]').fill(tooLong);
  await page.locator('input[name=q]').press('Enter');
  const search = page.locator('input[name=q][aria-invalid=true]');
  await search.waitFor();
  const said = await page.locator(`#${await search.getAttribute('aria-describedby')}`).innerText();
  expect(said).toMatch(/^Search: .*200 characters/);
  expect(said).not.toMatch(/querystring|pattern|must NOT/);
  expect(await focused(page)).toMatch(/^INPUT/);
  expect(await search.inputValue()).toBe(tooLong);

  await page.goto(`${c.h.baseUrl}/console/#/conversation/${turn.conversationId}`);
  // The what-if route's refusal of a version that is none (this API harness has no what-if route).
  const refusal = {
    code: 'VALIDATION_FAILED',
    message: 'querystring/config must match pattern "^(current|[0-9a-f]{16})$".',
    details: { in: 'query', field: 'config', problem: 'pattern' },
  };
  await page.route('**/api/v1/whatif?*', (route) => route.fulfill({ status: 400, json: { error: refusal } }));
  const config = page.locator('#whatif input[name=config]');
  await config.fill('nothex');
  await config.press('Enter');
  await page.locator('#whatif input[name=config][aria-invalid=true]').waitFor();
  const why = await page.locator(`#${await config.getAttribute('aria-describedby')}`).innerText();
  expect(why).toMatch(/^Config version: /);
  expect(why).not.toMatch(/querystring|pattern/);
  expect(await focused(page)).toMatch(/^INPUT/);
  await page.close();
});

test('Mark done with text that is no JSON marks the result field, keeping the focus; reason and token have labels', async () => {
  const { page } = await c.heldLoanTurn();
  expect(await page.locator('#held-tool input[name=reason]').evaluate(labelOf)).toMatch(/Reason/);
  await page.fill('#held-tool textarea[name=result]', 'not json');
  await page.locator('#held-tool button:has-text("Mark done")').focus();
  await page.keyboard.press('Enter');
  const result = page.locator('#held-tool textarea[name=result][aria-invalid=true]');
  await result.waitFor();
  expect(await page.locator(`#${await result.getAttribute('aria-describedby')}`).innerText()).toMatch(/JSON/);
  expect(await focused(page)).toMatch(/^TEXTAREA/);
  await c.failHeldTurn(page);

  await page.click('#token-button');
  expect(await page.locator('input[name=token]').evaluate(labelOf)).toMatch(/API token/);
  await page.close();
});

test('at 640 px no page scrolls sideways: its tables scroll in their own box', async () => {
  const { turn, page: parked } = await c.parkedLoanTurn(loanConfig({ submitNeedsApproval: true }));
  await parked.close();
  const page = await c.open('', { width: 640, height: 900 });
  await page.locator(`#awaiting-approval a[href="#/turn/${turn.workflowId}"]`).waitFor();
  await page.locator('#conversations').waitFor();
  const pageWidth = async () => Number(await page.evaluate('document.documentElement.scrollWidth'));
  expect(await pageWidth()).toBe(640);
  for (const view of [`#/conversation/${turn.conversationId}`, `#/turn/${turn.workflowId}`]) {
    await page.goto(`${c.h.baseUrl}/console/${view}`);
    await page.locator('main table').first().waitFor();
    expect([view, await pageWidth()]).toEqual([view, 640]);
  }
  await page.locator('#pending-approval button:has-text("Reject")').click();
  await page.locator('#pending-approval button:has-text("Confirm")').click();
  await page.locator('#pending-approval').waitFor({ state: 'detached', timeout: 60_000 });
  await page.close();
});

test('loading the console requests nothing that fails and logs no error; its icon is its own', async () => {
  const page = await c.browser.newPage();
  const failed: string[] = [];
  page.on('response', (r) => r.status() >= 400 && failed.push(`${r.status()} ${r.url()}`));
  page.on('console', (m) => m.type() === 'error' && failed.push(m.text()));
  await page.goto(`${c.h.baseUrl}/console/`);
  await page.locator('main h1').waitFor();
  // A browser asks for /favicon.ico (a 404 in its console) unless the page names an icon: headless Chromium asks
  // for none, so the icon named is loaded here, under the page's content security policy.
  const icon = await page.evaluate(`new Promise((resolve) => {
    const link = document.querySelector('link[rel~=icon]');
    if (!link) return resolve('no icon');
    const image = new Image();
    image.onload = () => resolve('loaded');
    image.onerror = () => resolve('failed: ' + link.href);
    image.src = link.href;
  })`);
  expect(icon).toBe('loaded');
  expect(failed).toEqual([]);
  await page.close();
});
