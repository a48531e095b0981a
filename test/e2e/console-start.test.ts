/**
 * The newcomer's path (issue #15): `convengine start` on embedded defaults prints the console's
 * address; opening it in a browser (headless Chromium) leads from the conversation list to a demo
 * turn's full story without any other instruction.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser } from 'playwright-core';
import { launchChromium } from '../support/browser';
import { DEMO_MESSAGES } from '../../demo/conversations';
import { ConvengineProcess } from '../support/child-processes';
import { EMBEDDED_ENV, newHome } from '../support/embedded-stack';

const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts', 'console');

jest.setTimeout(240_000);

const home = newHome();
let start: ConvengineProcess | null = null;
let browser: Browser | null = null;

afterAll(async () => {
  await browser?.close();
  await start?.stop(30_000);
  rmSync(home, { recursive: true, force: true });
});

test('npm start prints the console address, and the console tells a demo turn’s story', async () => {
  start = await ConvengineProcess.start(['start', '--port', '0', '--temporal-port', '0', '--home', home], {
    name: 'start',
    env: EMBEDDED_ENV,
    ready: /Turn console: http:\/\/\S+\/console/,
    readyTimeoutMs: 150_000,
  });
  const consoleUrl = /Turn console: (http:\/\/\S+\/console)/.exec(start.tail())?.[1] as string;
  const apiUrl = consoleUrl.replace(/\/console$/, '');
  const message = DEMO_MESSAGES.moveStatus('USPSC003BA100SA277CON1388');
  const res = await fetch(`${apiUrl}/api/v1/conversation/message`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message }),
  });
  expect(res.status).toBe(200);
  const reply = (await res.json()) as { conversationId: string; payload: { value: string } };

  browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await page.goto(consoleUrl);
  await page.locator(`a[href="#/conversation/${reply.conversationId}"]`).click();
  await page.getByText('Turn 1', { exact: true }).click();
  await page.locator('#timeline').waitFor();
  const text = await page.innerText('main');
  expect(text).toContain(message);
  expect(text).toContain(reply.payload.value);
  for (const step of ['LoadOrCreateConversation', 'IntentResolution', 'ResponseResolution', 'PersistConversation']) {
    expect(text).toContain(step);
  }
  expect(text).toContain('workflow COMPLETED');
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, 'newcomer-turn.png'), fullPage: true });
});
