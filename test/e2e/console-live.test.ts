/**
 * The turn page stays true to the turn after it stops running: an action's re-read is drawn, a turn run again is
 * followed live, a failed refresh is shown and recovered from, and a double click sends one action. And what the
 * pages show from users and tools: bidi controls visible, times in UTC; a refused token; the what-if panel.
 */
import { type Page, type Request } from 'playwright-core';
import { eventually } from '../devserver/harness';
import { ConsoleBrowser, refuseTokens, shot, SUBMIT_PATH } from '../support/console-browser';
import { extracted, plan } from '../support/loan-config';
import { answer, orderConfig } from '../support/order-config';

const c = ConsoleBrowser.forFile(240_000);

const actionPosts = (page: Page, action: string) => {
  const sent: Request[] = [];
  page.on('request', (r) => r.method() === 'POST' && r.url().endsWith(`/actions/${action}`) && sent.push(r));
  return sent;
};

/** Reads answered again, the page is live again; then the held turn is ended. */
async function recoversAndEnds(page: Page): Promise<void> {
  await page.unroute('**/api/v1/console/turns/*');
  await page.locator('#refresh-failed').waitFor({ state: 'detached', timeout: 15_000 });
  await page.locator('#live').waitFor();
  // End the held turn: on the real server's tier every suite shares one namespace, and a turn left held there is
  // listed by other suites' operator listings (worker-down's `sre list`) once this suite's worker is gone.
  await c.failHeldTurn(page);
  await page.close();
}

test('after Fail turn and a double-clicked Retry turn, the page follows the turn running again, live', async () => {
  const { turn, page } = await c.heldLoanTurn();
  await page.locator('#held-tool button:has-text("Fail turn")').click();
  await page.locator('#held-tool button:has-text("Confirm")').click();
  await page.locator('#failed-turn').waitFor({ timeout: 60_000 });
  expect(await page.locator('#live').count()).toBe(0);

  // The retry runs the turn again from its start; it is held again on the same failing tool.
  c.h.wf.mcp.llm.setScript([extracted('CUST-1001'), plan('loan.application.submit', 'CUST-1001'), answer('Done.')]);
  const retries = actionPosts(page, 'retry');
  await page.locator('#failed-turn button:has-text("Retry turn")').dblclick();
  await page.locator('#held-tool').waitFor({ timeout: 60_000 });
  expect(await page.locator('#failed-turn').count()).toBe(0);
  expect(await page.locator('#live').count()).toBe(1);
  expect(retries).toHaveLength(1);
  await shot(page, 'live-after-retry');

  // Decided elsewhere (the API): the page, following again, shows the turn move on without a click.
  const held = (await c.h.request('GET', `/api/v1/console/turns/${turn.workflowId}`)).json().heldTool;
  const skipped = await c.h.request('POST', `/api/v1/console/turns/${turn.workflowId}/actions/held-skip`, {
    json: { callIndex: held.callIndex },
  });
  expect([200, 202]).toContain(skipped.status);
  await page.locator('#held-tool').waitFor({ state: 'detached', timeout: 30_000 });
  await eventually(async () => expect(await page.locator('#live').count()).toBe(0), 30_000);
  c.h.wf.mcp.toolServer.faults.clear(SUBMIT_PATH);
  await page.close();
});

/** The payloads of each tool call run's audit rows, as the timeline shows them: run by run, row by row. */
const toolCallRuns = (page: Page) =>
  page
    .locator('#timeline tr[data-type=McpToolCall]')
    .evaluateAll((rows) =>
      rows.map((row) => [...row.querySelectorAll('details.audits pre')].map((pre) => pre.textContent))
    );

test('each run of a held call (the first, a retry, Mark done) shows its own audit rows, and only those', async () => {
  const { turn, page } = await c.heldLoanTurn();
  const read = async () => (await c.h.request('GET', `/api/v1/console/turns/${turn.workflowId}`)).json();
  const act = async (action: string, json: object) =>
    expect([200, 202]).toContain(
      (await c.h.request('POST', `/api/v1/console/turns/${turn.workflowId}/actions/${action}`, { json })).status
    );
  await act('held-retry', { callIndex: 1 });
  // The upstream still fails: held again after the second run (hold 2), then marked done, a third run.
  const keys = async () => ((await read()).audits as { callKey: string }[]).map((a) => a.callKey);
  await eventually(
    async () => expect(await keys()).toContainEqual(expect.stringMatching(/-tool-1-hold-2-held$/)),
    60_000
  );
  await act('held-mark-done', { callIndex: 1, result: { applicationId: 'LA-90311' } });
  await page.locator('h1:has-text("ANSWERED")').waitFor({ timeout: 60_000 });

  const audits: { callKey: string; payload: unknown }[] = (await read()).audits;
  const rowsOf = (run: RegExp) =>
    audits.filter((a) => run.test(a.callKey)).map((a) => JSON.stringify(a.payload, null, 2));
  const runs = [/-McpTool-tool-1$/, /-McpTool-tool-1-retry-1$/, /-McpTool-tool-1-done$/].map(rowsOf);
  expect(runs.map((rows) => rows.length > 0)).toEqual([true, true, true]);
  await eventually(async () => expect(await toolCallRuns(page)).toEqual(runs), 15_000);
  expect(await page.innerText('#other-audits')).not.toContain('MCP_TOOL_CALL');
  c.h.wf.mcp.toolServer.faults.clear(SUBMIT_PATH);
  await page.close();
});

test('a refresh that fails says so (the API code) instead of staying "live", and the page recovers', async () => {
  const { page } = await c.heldLoanTurn();
  await page.locator('#live').waitFor();
  const error = { code: 'DATABASE_UNREACHABLE', message: 'The database is unreachable; retry later.' };
  await page.route('**/api/v1/console/turns/*', (route) =>
    route.request().method() === 'GET' ? route.fulfill({ status: 503, json: { error } }) : route.continue()
  );
  const failed = page.locator('#refresh-failed');
  await failed.waitFor({ timeout: 15_000 });
  expect(await failed.innerText()).toContain('DATABASE_UNREACHABLE: The database is unreachable; retry later.');
  expect(await failed.innerText()).toMatch(/as read \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} UTC/);
  expect(await page.locator('#live').count()).toBe(0);
  await shot(page, 'refresh-failed');

  await recoversAndEnds(page);
});

test('a script error in a live redraw says in words that the page could not be refreshed, not the error', async () => {
  const { page } = await c.heldLoanTurn();
  await page.locator('#live').waitFor();
  const logged: string[] = [];
  page.on('console', (message) => message.type() === 'error' && logged.push(message.text()));
  // The API's answer, changed so that drawing it throws deep in the timeline (a TypeError on undefined).
  await page.route('**/api/v1/console/turns/*', async (route) => {
    if (route.request().method() !== 'GET') return route.continue();
    const turn = await (await route.fetch()).json();
    return route.fulfill({ json: { ...turn, story: { ...turn.story, timeline: undefined } } });
  });
  const failed = page.locator('#refresh-failed');
  await failed.waitFor({ timeout: 15_000 });
  const said = await failed.innerText();
  expect(said).toContain('the live view could not be refreshed');
  expect(said).toContain('Reload the page');
  expect(said).not.toMatch(/TypeError|undefined|reading/);
  expect(said).toMatch(/as read \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} UTC/);
  expect(await page.locator('#live').count()).toBe(0);
  // The error itself is for a developer: in the browser's console.
  await eventually(async () => expect(logged.join('\n')).toContain('TypeError'), 5_000);

  await recoversAndEnds(page);
});

test('bidi overrides from users and tools are shown, not obeyed; times are UTC', async () => {
  await c.h.wf.mcp.configure(orderConfig());
  c.h.wf.mcp.llm.setScript([answer('Invoice \u202Efdp.exe ready')]);
  const turn = await c.send('Check order ORD-7017 status: file \u202Etxt.exe');
  expect(turn.status).toBe(200);
  for (const path of [`#/conversation/${turn.conversationId}`, `#/turn/${turn.workflowId}`]) {
    const page = await c.open(path);
    await page.locator('.said').first().waitFor();
    const text = await page.innerText('#main');
    expect([path, text.includes('\u202E')]).toEqual([path, false]);
    expect(text).toContain('file \u27E8U+202E\u27E9txt.exe');
    expect(text).toContain('Invoice \u27E8U+202E\u27E9fdp.exe ready');
    const bidi = "getComputedStyle(document.querySelector('.said')).unicodeBidi";
    expect(await page.evaluate(bidi)).toBe('plaintext');
    expect(text).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} UTC/);
    await page.close();
  }
});

test('a refused token says so on the token form', async () => {
  const page = await c.open('#/');
  await page.locator('form.filters').waitFor();
  const refusal = { code: 'UNAUTHORIZED', message: 'The bearer token is not valid.' };
  await refuseTokens(page, refusal);
  await page.click('#token-button');
  await page.fill('input[name=token]', 'wrong');
  await page.press('input[name=token]', 'Enter');
  const refused = page.locator('#token-refused');
  await refused.waitFor();
  expect(await refused.innerText()).toContain(
    'The API refused this token (UNAUTHORIZED: The bearer token is not valid.)'
  );
  await page.close();
});

test("a conversation's page replays it against a config version (what-if), on request", async () => {
  await c.h.wf.mcp.configure(orderConfig());
  c.h.wf.mcp.llm.setScript([answer('Shipped.')]);
  const turn = await c.send('Check order ORD-7017 status');
  const page = await c.open(`#/conversation/${turn.conversationId}`);
  const asked: string[] = [];
  const facts = {
    intent: 'ORDER',
    state: 'DONE',
    rulesFired: [],
    toolsCalled: [],
    response: 'Shipped.',
    approvals: [],
    error: null,
  };
  await page.route('**/api/v1/whatif?*', (route) => {
    asked.push(route.request().url());
    return route.fulfill({
      json: {
        conversationId: turn.conversationId,
        config: { version: 'abcdefabcdef0123' },
        differs: true,
        summary: { changed: 1 },
        turns: [
          {
            turnNumber: 1,
            userText: 'Check order ORD-7017 status',
            status: 'changed',
            changes: [{ field: 'response', recorded: 'Shipped.', replayed: 'On its way.' }],
            missing: [],
            recorded: facts,
            replayed: { ...facts, response: 'On its way.' },
          },
        ],
      },
    });
  });
  await page.locator('#whatif').waitFor();
  expect(asked).toEqual([]);
  await page.fill('#whatif input[name=config]', 'abcdefabcdef0123');
  await page.click('#whatif button:has-text("Replay")');
  await page.locator('#whatif-turns').waitFor();
  expect(new URL(asked[0] ?? '').searchParams.get('config')).toBe('abcdefabcdef0123');
  expect(await page.innerText('#whatif-summary')).toContain('differs (1 changed)');
  expect(await page.innerText('#whatif-turns')).toContain('response: Shipped. → On its way.');
  await page.close();
});
