/**
 * What a user wrote stays in its own box on the console's pages: the list shows a few lines of a long message (the
 * whole of it on the conversation's page), and a letter under hundreds of combining marks paints nothing outside
 * its cell or paragraph, over the headings and rows around it.
 */
import { type Page } from 'playwright-core';
import { ConsoleBrowser } from '../support/console-browser';
import { answer, orderConfig } from '../support/order-config';

const c = ConsoleBrowser.forFile(180_000);

beforeAll(async () => {
  await c.h.wf.mcp.configure(orderConfig());
});

async function sent(message: string) {
  c.h.wf.mcp.llm.setScript([answer('Order ORD-7017 is submitted.')]);
  const turn = await c.send(message);
  expect(turn.status).toBe(200);
  return turn;
}

/**
 * Whether the page looks the same outside the boxes `selector` names with their text shown and with it made
 * transparent (the boxes themselves masked in both): text that paints outside its box makes them differ.
 */
async function paintsOutside(page: Page, selector: string): Promise<boolean> {
  const boxes = page.locator(selector);
  const shown = await page.screenshot({ fullPage: true, mask: [boxes], animations: 'disabled' });
  await page.evaluate(
    `document.querySelectorAll(${JSON.stringify(selector)}).forEach((el) => { el.style.color = 'transparent'; })`
  );
  const hidden = await page.screenshot({ fullPage: true, mask: [boxes], animations: 'disabled' });
  return !shown.equals(hidden);
}

test('a message of 8 KB takes a few lines of its list row; its conversation page shows all of it', async () => {
  const message = `Check order ORD-7017 status: ${'lorem ipsum dolor '.repeat(440)}`.trim();
  const turn = await sent(message);
  const list = await c.open(`#/?q=${turn.conversationId}`, { width: 1200, height: 800 });
  const row = list.locator('table.list tbody tr').first();
  await row.waitFor();
  const height = (await row.boundingBox())?.height ?? Infinity;
  expect(height).toBeLessThan(120);
  await list.close();
  const conversation = await c.open(`#/conversation/${turn.conversationId}`, { width: 1200, height: 800 });
  const said = conversation.locator('table.list tbody td.said').first();
  await said.waitFor();
  expect(await said.innerText()).toBe(message);
  await conversation.close();
});

test('a letter under 400 combining marks paints only inside its cell or paragraph, on every page', async () => {
  const marks = Array.from({ length: 400 }, (_, i) => String.fromCodePoint(0x300 + (i % 0x70))).join('');
  const turn = await sent(`Check order ORD-7017 status: Z${marks}`);
  for (const path of [`#/?q=${turn.conversationId}`, `#/conversation/${turn.conversationId}`]) {
    const page = await c.open(path, { width: 1200, height: 800 });
    await page.locator('table.list tbody td.said').first().waitFor();
    expect([path, await paintsOutside(page, '.said')]).toEqual([path, false]);
    await page.close();
  }
  const page = await c.openTurn(turn.workflowId);
  await page.locator('p.said').first().waitFor();
  expect(await paintsOutside(page, '.said')).toBe(false);
  await page.close();
});
