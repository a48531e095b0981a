/**
 * The questions the turn console asks before an action that cannot be undone (Fail turn, Reject), on a live page: a
 * redraw keeps the question open, the focus in it and its Confirm working; a question about a decision that is no
 * longer waiting (decided elsewhere, the turn moved on) closes, says so, and sends nothing.
 */
import { type Page } from 'playwright-core';
import { eventually } from '../devserver/harness';
import { ConsoleBrowser, countRedraws, rewriteTurnReads, SUBMIT_PATH } from '../support/console-browser';
import { loanConfig } from '../support/loan-config';

const c = ConsoleBrowser.forFile(240_000);

const focused = async (page: Page) =>
  String(await page.evaluate(`document.activeElement.tagName + ' ' + document.activeElement.textContent.trim()`));

/** The URLs of the actions the page posts from now on. */
function actionPosts(page: Page): string[] {
  const posts: string[] = [];
  page.on('request', (r) => r.method() === 'POST' && posts.push(r.url()));
  return posts;
}

const CLOSED = /^Closed “.+”, nothing sent: /;

test('Fail turn’s question stays open across live redraws, the focus on its Confirm, which then fails the turn', async () => {
  const { page } = await c.heldLoanTurn();
  const held = page.locator('#held-tool');
  const posts = actionPosts(page);
  await held.locator('button:has-text("Fail turn")').click();
  expect(await focused(page)).toBe('BUTTON Cancel');
  await page.keyboard.press('Shift+Tab');
  expect(await focused(page)).toBe('BUTTON Confirm');

  // Every read of the turn is a change now: the page redraws on each (the 3 s poll), the hold still there.
  const redraws = await countRedraws(page);
  await rewriteTurnReads(page, (t, read) => (t.story.eventCount += read));
  await eventually(async () => expect(await redraws()).toBeGreaterThanOrEqual(2), 15_000);
  expect(await focused(page)).toBe('BUTTON Confirm');
  expect(await held.locator('[role=group]').count()).toBe(1);
  expect(await held.locator('[role=group]').innerText()).toContain('Fail this turn?');
  expect(await page.locator('#action-outcome').innerText()).toBe('');
  expect(posts).toEqual([]);

  await page.unroute('**/api/v1/console/turns/*');
  await page.keyboard.press('Enter');
  await page.locator('#failed-turn').waitFor({ timeout: 60_000 });
  expect(posts).toEqual([expect.stringMatching(/\/actions\/held-fail$/)]);
  c.h.wf.mcp.toolServer.faults.clear(SUBMIT_PATH);
  await page.close();
});

test('Reject’s question closes once another operator approved the call, says so, and the focus goes there', async () => {
  const { turn, page } = await c.parkedLoanTurn(loanConfig({ submitNeedsApproval: true }));
  const panel = page.locator('#pending-approval');
  await panel.waitFor();
  const posts = actionPosts(page);
  await panel.locator('button:has-text("Reject")').click();
  expect(await focused(page)).toBe('BUTTON Cancel');

  const approved = await c.h.request('POST', `/api/v1/console/turns/${turn.workflowId}/actions/approve`, {
    json: { callIndex: Number(await panel.getAttribute('data-call')) },
  });
  expect([200, 202]).toContain(approved.status);
  await panel.waitFor({ state: 'detached', timeout: 60_000 });
  const said = page.locator('#action-outcome [role=status]');
  expect(await said.count()).toBe(1);
  expect(await said.innerText()).toMatch(CLOSED);
  expect(await said.innerText()).toMatch(/Reject .*loan\.application\.submit\?/);
  expect(await said.innerText()).toContain('call 1 of loan.application.submit is no longer waiting for approval');
  expect(await page.evaluate('document.activeElement.className')).toBe('outcome');
  await page.locator('h1:has-text("ANSWERED")').waitFor({ timeout: 60_000 });
  expect(posts).toEqual([]);
  await page.close();
});

test('Fail turn’s question closes when another operator retried the held call, even as it is held again', async () => {
  const { turn, page } = await c.heldLoanTurn();
  const held = page.locator('#held-tool');
  const heldAt = (await c.h.request('GET', `/api/v1/console/turns/${turn.workflowId}`)).json().heldTool.heldAt;
  const posts = actionPosts(page);
  await held.locator('button:has-text("Fail turn")').click();

  const retried = await c.h.request('POST', `/api/v1/console/turns/${turn.workflowId}/actions/held-retry`, {
    json: { callIndex: 1 },
  });
  expect([200, 202]).toContain(retried.status);
  const said = page.locator('#action-outcome [role=status]');
  await said.waitFor({ timeout: 60_000 });
  expect(await said.innerText()).toMatch(CLOSED);
  expect(await said.innerText()).toContain('call 1 of loan.application.submit is no longer held');
  expect(await page.evaluate('document.activeElement.className')).toBe('outcome');
  // Held again (the upstream still fails): the new hold is asked about afresh.
  await eventually(async () => {
    const again = (await c.h.request('GET', `/api/v1/console/turns/${turn.workflowId}`)).json().heldTool;
    expect(again?.heldAt ?? heldAt).not.toBe(heldAt);
  }, 60_000);
  await held.waitFor({ timeout: 60_000 });
  expect(await held.locator('[role=group]').count()).toBe(0);
  expect(posts).toEqual([]);

  const failed = await c.h.request('POST', `/api/v1/console/turns/${turn.workflowId}/actions/held-fail`, {
    json: { callIndex: 1 },
  });
  expect([200, 202]).toContain(failed.status);
  c.h.wf.mcp.toolServer.faults.clear(SUBMIT_PATH);
  await page.close();
});

/** The API's answer to a decision no worker could take (api/turns/decisions.ts): 503, nothing sent. */
const notSent = (workflowId: string) => ({
  status: 503,
  json: {
    error: {
      code: 'WORKER_UNAVAILABLE',
      message:
        `Turn ${workflowId} cannot take a decision now: no worker polls its task queue. Nothing was sent; ` +
        'start a worker (convengine worker), then decide again.',
      details: { workflowId, taskQueue: 'turns', decisionSent: false },
    },
  },
});

test('Fail turn refused with the worker unreachable (503, nothing sent) says so and keeps its question to Confirm again', async () => {
  const { turn, page } = await c.heldLoanTurn();
  const held = page.locator('#held-tool');
  await page.route('**/actions/held-fail', (route) => route.fulfill(notSent(turn.workflowId)));
  await held.locator('button:has-text("Fail turn")').click();
  await held.locator('button:has-text("Confirm")').click();
  const said = page.locator('#action-outcome');
  await said.locator('.error').waitFor();
  expect(await said.innerText()).toContain("held-fail: nothing was sent, the turn's worker is unreachable");
  expect(await said.innerText()).not.toContain('no longer held');
  await eventually(async () => expect(await held.locator('[role=group]').count()).toBe(1), 15_000);
  expect(await held.locator('[role=group]').innerText()).toContain('Fail this turn?');

  await page.unroute('**/actions/held-fail');
  await held.locator('button:has-text("Confirm")').click();
  await page.locator('#failed-turn').waitFor({ timeout: 60_000 });
  c.h.wf.mcp.toolServer.faults.clear(SUBMIT_PATH);
  await page.close();
});

test('an open question stays open while the worker cannot be read, says why, not "no longer held", and comes back', async () => {
  const { page } = await c.heldLoanTurn();
  const held = page.locator('#held-tool');
  const posts = actionPosts(page);
  await held.locator('button:has-text("Fail turn")').click();

  // The API's read with the worker unreachable: what the turn waits on cannot be read (api/routes/console/turn.ts).
  await rewriteTurnReads(page, (t) => {
    t.heldTool = null;
    t.waitingUnavailable = `Cannot read what turn ${t.workflowId} waits on: no worker polls its task queue.`;
  });
  await page.locator('#waiting-unavailable').waitFor({ timeout: 15_000 });
  const said = page.locator('#action-outcome [role=status]');
  await said.waitFor();
  expect(await said.innerText()).toContain("stays open, nothing sent: the turn's worker is unreachable");
  expect(await said.innerText()).not.toContain('no longer held');

  await page.unroute('**/api/v1/console/turns/*');
  await held.waitFor({ timeout: 15_000 });
  expect(await held.locator('[role=group]').innerText()).toContain('Fail this turn?');
  expect(posts).toEqual([]);
  await held.locator('button:has-text("Confirm")').click();
  await page.locator('#failed-turn').waitFor({ timeout: 60_000 });
  c.h.wf.mcp.toolServer.faults.clear(SUBMIT_PATH);
  await page.close();
});
