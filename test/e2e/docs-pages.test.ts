/**
 * Swagger UI (/docs) is served as the turn console is: with the pages' security headers (api/page-headers.ts), so
 * no other site can frame it and click its Authorize or Execute for the operator, and it still renders in Chromium
 * under that policy. A dot-segment under /docs/static is refused with a code that says 403.
 */
import { createServer, get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { buildApi } from '../../api/app';
import { launchChromium } from '../support/browser';
import { fakeConsolePorts, fakePorts } from '../support/fake-ports';

jest.setTimeout(60_000);

const app = buildApi({ ports: fakePorts({}), console: fakeConsolePorts(), messageMaxBytes: 8192, logLevel: 'silent' });
let base = '';
let browser: Browser;
let framer: Server;

beforeAll(async () => {
  base = await app.listen({ host: '127.0.0.1', port: 0 });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (framer ? framer.close(resolve) : resolve(undefined)));
  await app.close();
});

/** A GET sent with its path as written: fetch and inject would resolve `..` before sending it. */
function rawGet(path: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(base);
    get({ host: hostname, port, path }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    }).on('error', reject);
  });
}

test.each(['/docs', '/docs/', '/docs/static/swagger-ui-bundle.js', '/docs/static/swagger-ui.css', '/console'])(
  '%s carries the pages’ security headers',
  async (path) => {
    const res = await rawGet(path);
    expect(res.status).toBe(200);
    expect(res.headers).toMatchObject({ 'x-frame-options': 'DENY', 'x-content-type-options': 'nosniff' });
    expect(String(res.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
    expect(String(res.headers['content-security-policy'])).toContain("script-src 'self';");
  }
);

test.each(['/docs/static/%2e%2e/%2e%2e/package.json', '/docs/static/../package.json'])(
  'a dot-segment under /docs/static (%s) is 403 FORBIDDEN, not BAD_REQUEST',
  async (path) => {
    const res = await rawGet(path);
    expect([res.status, JSON.parse(res.body).error.code]).toEqual([403, 'FORBIDDEN']);
  }
);

test('Swagger UI renders its operations under that policy, and breaks none of it', async () => {
  const page = await browser.newPage();
  const refused: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text());
  });
  await page.goto(`${base}/docs`);
  await page.locator('.opblock-summary-path', { hasText: '/api/v1/conversation/message' }).first().waitFor();
  await page.locator('button.authorize').waitFor();
  expect(refused).toEqual([]);
  await page.close();
});

test('another site cannot frame Swagger UI', async () => {
  framer = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end(`<iframe id="docs" src="${base}/docs" width="800" height="600"></iframe>`);
  });
  await new Promise<void>((resolve) => framer.listen(0, '127.0.0.1', resolve));
  // localhost, not 127.0.0.1: another origin than the API's.
  const page = await browser.newPage();
  const docsLoads: string[] = [];
  page.on('requestfinished', (request) => {
    if (request.url().startsWith(`${base}/docs/static/`)) docsLoads.push(request.url());
  });
  await page.goto(`http://localhost:${(framer.address() as AddressInfo).port}/`);
  await page.waitForTimeout(1500);
  const frame = page.frames().find((f) => f !== page.mainFrame());
  // The frame's document was refused: Swagger UI's page never ran there, so it loaded none of its files.
  expect(docsLoads).toEqual([]);
  expect(
    await frame
      ?.locator('#swagger-ui')
      .count()
      .catch(() => 0)
  ).toBe(0);
  await page.close();
});
