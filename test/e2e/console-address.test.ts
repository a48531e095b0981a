/**
 * A console link is the operator's browser acting with the operator's token: the ids in its hash are checked against
 * the patterns the API validates them with before any request, and put in a path only encoded, so a crafted link
 * (`#/turn/..%2F..%2F..%2Fv1%2Fwhatif%3F…`) makes no request to another route; it shows the console's own error. An
 * answer the page cannot read is said as such, never as a script error's text.
 */
import type { BrowserContext, Page, Route } from 'playwright-core';
import { ConsoleBrowser } from '../support/console-browser';
import { answer, orderConfig } from '../support/order-config';

const TOKEN = 'console-address-token';
const auth = { authorization: `Bearer ${TOKEN}` };

const c = ConsoleBrowser.forFile(120_000, { apiToken: TOKEN });
let browser: BrowserContext;
let conversationId = '';
let workflowId = '';

beforeAll(async () => {
  // The operator's tab, which has the token stored (sessionStorage) before the console's scripts run.
  browser = await c.browser.newContext();
  await browser.addInitScript(`sessionStorage.setItem('convengine.apiToken', ${JSON.stringify(TOKEN)})`);
  await c.h.wf.mcp.configure(orderConfig());
  c.h.wf.mcp.llm.setScript([answer('ORD-7017 ships tomorrow.')]);
  const res = await c.h.request('POST', '/api/v1/conversation/message', {
    json: { message: 'Check order ORD-7017 status' },
    headers: auth,
  });
  expect(res.status).toBe(200);
  ({ conversationId } = res.json());
  workflowId = `turn-${conversationId}-1`;
});

afterAll(async () => browser?.close());

/** A console page opened at `hash`, and the API paths (with their query) the page requested. */
async function openAt(hash: string): Promise<{ page: Page; requested: string[]; errors: string[] }> {
  const page = await browser.newPage();
  const requested: string[] = [];
  const errors: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith('/api/')) requested.push(`${url.pathname}${url.search}`);
  });
  page.on('pageerror', (err) => errors.push(err.message));
  await page.goto(`${c.h.baseUrl}/console/${hash}`);
  return { page, requested, errors };
}

const alertText = async (page: Page) => {
  await page.locator('#main [role=alert]').waitFor();
  return page.innerText('#main [role=alert]');
};

test.each([
  () => `#/turn/..%2F..%2F..%2Fv1%2Fwhatif%3Fconfig%3Dcurrent%26conversation%3D${conversationId}`,
  () => '#/conversation/..%2F..%2F..%2Fadmin%2Fturns%2Fheld%3F',
  () => `#/turn/..%2F..%2F..%2Fv1%2Fconversation%2F${conversationId}`,
  () => `#/conversation/${conversationId}%2F..%2F..%2F..%2Fadmin%2Fturns%2Fheld%3F`,
  () => `#/turn/${workflowId}%3Fx`,
  () => `#/conversation/${conversationId}/more`,
  () => '#/nothing-here',
])('a crafted address (%#) requests nothing and shows the console’s own error', async (crafted) => {
  const { page, requested, errors } = await openAt(crafted());
  expect(await alertText(page)).toMatch(/^PAGE_NOT_FOUND: The console has no page at #\//);
  await page.waitForTimeout(500);
  expect({ requested, errors }).toEqual({ requested: [], errors: [] });
  await page.close();
});

test('a real turn and conversation still open, asking only the console’s routes', async () => {
  for (const [hash, shown] of <[string, string][]>[
    [`#/turn/${workflowId}`, '#timeline'],
    [`#/turn/${workflowId.toUpperCase().replace('TURN-', 'turn-')}`, '#timeline'],
    [`#/conversation/${conversationId}`, 'table.list'],
  ]) {
    const { page, requested, errors } = await openAt(hash);
    await page.locator(shown).first().waitFor();
    expect({ hash, errors, elsewhere: requested.filter((p) => !p.startsWith('/api/v1/console/')) }).toEqual({
      hash,
      errors: [],
      elsewhere: [],
    });
    await page.close();
  }
});

test.each([
  ['not a turn', { json: { turns: [] } }],
  ['not JSON', { body: '<html>proxy error</html>', contentType: 'text/html' }],
])('an answer that is %s shows UNEXPECTED_ANSWER, not a script error', async (_name, fulfilled) => {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  await page.route('**/api/v1/console/turns/*', (route: Route) => route.fulfill({ status: 200, ...fulfilled }));
  await page.goto(`${c.h.baseUrl}/console/#/turn/${workflowId}`);
  const text = await alertText(page);
  expect(text).toMatch(/^UNEXPECTED_ANSWER: /);
  expect(text).not.toMatch(/undefined|Cannot read|JSON\.parse|Unexpected token/);
  expect(errors).toEqual([]);
  await page.close();
});
