/**
 * The turn console's layout and controls for low vision, a phone and a keyboard, checked with axe-core where it has
 * the rule: a held turn reflows at 320 px and the header's targets are big enough at 360 px; an earlier run's row
 * keeps full contrast; the what-if result is announced and its version field labelled in sight; an audit payload's
 * scroll box is reachable by keyboard; the held and approval panels say what each choice does (and on which call) in
 * words on the page, and the choices that end something (Fail turn, Reject) ask first.
 */
import { readFileSync } from 'node:fs';
import { type Page } from 'playwright-core';
import { ConsoleBrowser, SUBMIT_PATH } from '../support/console-browser';
import { loanConfig } from '../support/loan-config';
import { answer, callTool, orderConfig } from '../support/order-config';

const c = ConsoleBrowser.forFile(240_000);

const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's violations of `rules` within `selector` on the page, as `rule: node, node`. */
async function axe(page: Page, rules: string[], selector = 'body'): Promise<string[]> {
  // Evaluated by the devtools protocol, not a script tag: the console's content security policy allows no inline one.
  await page.evaluate(AXE);
  const options = JSON.stringify({ runOnly: { type: 'rule', values: rules } });
  return page.evaluate(`axe.run(${JSON.stringify(selector)}, ${options}).then((r) => r.violations.map((v) =>
    v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`);
}

/** A loan turn holding its submit call for an operator (#22), on its page. */
async function heldTurn(viewport?: { width: number; height: number }) {
  const held = await c.heldLoanTurn();
  if (viewport) await held.page.setViewportSize(viewport);
  return held;
}

/** Ends a held turn over the API, so the next test starts with none. */
async function failHeld(workflowId: string) {
  const res = await c.h.request('POST', `/api/v1/console/turns/${workflowId}/actions/held-fail`, {
    json: { callIndex: 1 },
  });
  expect([200, 202]).toContain(res.status);
  c.h.wf.mcp.toolServer.faults.clear(SUBMIT_PATH);
}

const pageWidth = async (page: Page) => Number(await page.evaluate('document.documentElement.scrollWidth'));

/** Each button in `selector` by its text, with the visible text its `aria-describedby` names (null without). */
const described = async (page: Page, selector: string): Promise<Record<string, string | null>> =>
  page.evaluate(`Object.fromEntries([...document.querySelectorAll(${JSON.stringify(selector)} + ' button')].map((b) => {
    const ids = (b.getAttribute('aria-describedby') ?? '').split(' ');
    const texts = ids.map((id) => document.getElementById(id)).filter((el) => el && el.checkVisibility());
    return [b.textContent, texts.length ? texts.map((el) => el.textContent).join(' ') : null];
  }))`);

const focused = async (page: Page) =>
  String(await page.evaluate(`document.activeElement.tagName + ' ' + document.activeElement.textContent.trim()`));

test('a held turn reflows at 320 px, and at 360 px the header links and button are targets of 24 px', async () => {
  const { turn, page } = await heldTurn({ width: 320, height: 740 });
  expect(await pageWidth(page)).toBe(320);
  await page.setViewportSize({ width: 360, height: 740 });
  expect(await pageWidth(page)).toBe(360);
  expect(await axe(page, ['target-size'], 'header')).toEqual([]);
  await page.close();
  await failHeld(turn.workflowId);
});

test("an earlier run's row (a failed message, superseded) is in full contrast, and still says what it is", async () => {
  const script = () => [callTool('mock.order.status', { orderId: 'ORD-7017' }), answer('Order submitted.')];
  const rows = orderConfig();
  // No COMPLETED reply: the first message fails before it commits, and the next one takes its turn number.
  await c.h.wf.mcp.configure({ ...rows, responses: (rows.responses ?? []).filter((r) => r.stateCode !== 'COMPLETED') });
  c.h.wf.mcp.llm.setScript(script());
  const failed = await c.send('Check order ORD-7017 status, the failing one.');
  expect(failed.status).toBe(500);
  await c.h.wf.mcp.configure(orderConfig());
  c.h.wf.mcp.llm.setScript(script());
  await c.send('Check order ORD-7017 status again.', failed.conversationId);

  const page = await c.open(`#/conversation/${failed.conversationId}`);
  const earlier = page.locator('#turns tr.earlier-run');
  await earlier.waitFor();
  expect(await earlier.innerText()).toContain('failed message, superseded');
  expect(await axe(page, ['color-contrast'], '#turns tr.earlier-run')).toEqual([]);
  await page.close();
});

test('the what-if result is announced in a status region, and its version field has a label in sight', async () => {
  await c.h.wf.mcp.configure(orderConfig());
  c.h.wf.mcp.llm.setScript([answer('Shipped.')]);
  const turn = await c.send('Check order ORD-7017 status');
  const page = await c.open(`#/conversation/${turn.conversationId}`);
  await page.route('**/api/v1/whatif?*', (route) =>
    route.fulfill({
      json: {
        conversationId: turn.conversationId,
        config: { version: 'abcdefabcdef0123' },
        differs: false,
        summary: { same: 1 },
        turns: [{ turnNumber: 1, userText: 'Check order ORD-7017 status', status: 'same', changes: [], missing: [] }],
      },
    })
  );
  const version = page.locator('#whatif input[name=config]');
  await version.waitFor();
  // A live region is announced when its content changes, so it is on the page before the replay is asked for.
  const region = page.locator('#whatif [role=status]');
  expect(await region.count()).toBe(1);
  expect(await version.getAttribute('aria-label')).toBeNull();
  const label = version.locator('xpath=ancestor::label');
  expect(await label.isVisible()).toBe(true);
  expect(await label.innerText()).toMatch(/^Config version/);
  await version.press('Enter');
  await page.locator('#whatif-summary').waitFor();
  expect(await region.innerText()).toContain('no turn changes (1 same)');
  await page.close();
});

test("each audit row's payload box is a named region the keyboard reaches, as the table boxes are", async () => {
  await c.h.wf.mcp.configure(orderConfig());
  c.h.wf.mcp.llm.setScript([answer('Shipped.')]);
  const turn = await c.send('Check order ORD-7017 status');
  const page = await c.openTurn(turn.workflowId);
  const boxes = page.locator('details.audits pre');
  expect(await boxes.count()).toBeGreaterThan(0);
  for (const box of await boxes.all()) {
    expect([await box.getAttribute('tabindex'), await box.getAttribute('role')]).toEqual(['0', 'region']);
    const stage = await box.evaluate((pre) => pre.previousElementSibling?.textContent);
    expect(await box.getAttribute('aria-label')).toBe(`${stage} payload`);
  }
  await page.evaluate(`document.querySelectorAll('details.audits').forEach((d) => (d.open = true))`);
  expect(await axe(page, ['scrollable-region-focusable', 'aria-allowed-role'], '#timeline')).toEqual([]);
  await page.close();
});

test('the held panel says what each choice does on the page; Fail turn asks first, by keyboard', async () => {
  const { page } = await heldTurn();
  const held = page.locator('#held-tool');
  const said = /\w{4,} \w{4,}/;
  expect(await described(page, '#held-tool')).toEqual({
    Retry: expect.stringMatching(said),
    Skip: expect.stringMatching(said),
    'Fail turn': expect.stringMatching(said),
    'Mark done': expect.stringMatching(said),
  });
  expect(await held.locator('button[title]').count()).toBe(0);
  const actions: string[] = [];
  page.on('request', (r) => r.method() === 'POST' && actions.push(r.url()));

  await held.locator('button:has-text("Fail turn")').focus();
  await page.keyboard.press('Enter');
  expect(await focused(page)).toBe('BUTTON Cancel');
  expect(await described(page, '#held-tool')).toMatchObject({ Confirm: expect.stringMatching(/fail/i) });
  await page.keyboard.press('Enter');
  expect(await focused(page)).toBe('BUTTON Fail turn');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Escape');
  expect(await focused(page)).toBe('BUTTON Fail turn');
  expect(actions).toEqual([]);
  await page.keyboard.press('Enter');
  await page.keyboard.press('Shift+Tab');
  expect(await focused(page)).toBe('BUTTON Confirm');
  await page.keyboard.press('Enter');
  await page.locator('#failed-turn').waitFor({ timeout: 60_000 });
  expect(actions).toEqual([expect.stringMatching(/\/actions\/held-fail$/)]);
  c.h.wf.mcp.toolServer.faults.clear(SUBMIT_PATH);
  await page.close();
});

test('Approve and Reject say which call they decide; Reject asks first: Cancel sends nothing, Confirm rejects', async () => {
  const { page } = await c.parkedLoanTurn(loanConfig({ submitNeedsApproval: true }));
  const panel = page.locator('#pending-approval');
  await panel.waitFor();
  const call = 'call 1 of loan.application.submit';
  expect(await described(page, '#pending-approval')).toEqual({
    Approve: `Run ${call} with the arguments above; the turn goes on with its result.`,
    Reject: `Do not run ${call}: the turn goes on without it.`,
  });
  expect(await panel.locator('button[title]').count()).toBe(0);
  const actions: string[] = [];
  page.on('request', (r) => r.method() === 'POST' && actions.push(r.url()));
  await panel.locator('button:has-text("Reject")').click();
  expect(await described(page, '#pending-approval')).toMatchObject({
    Confirm: `Reject ${call}? The turn goes on without it.`,
  });
  await panel.locator('button:has-text("Cancel")').click();
  expect(await focused(page)).toBe('BUTTON Reject');
  expect(actions).toEqual([]);
  await panel.locator('button:has-text("Reject")').click();
  await panel.locator('button:has-text("Confirm")').click();
  await panel.waitFor({ state: 'detached', timeout: 60_000 });
  expect(actions).toEqual([expect.stringMatching(/\/actions\/reject$/)]);
  await page.close();
});
