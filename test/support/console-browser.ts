import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type Page, type Route } from 'playwright-core';
import type { ConfigRows } from '../../core/config/types';
import { listAudits } from '../../db/repositories/audit';
import { ApiHarness, type ApiHarnessOptions, type ApiJson } from './api-harness';
import { launchChromium } from './browser';
import { extracted, LOAN_MESSAGE, loanConfig, plan } from './loan-config';
import { answer } from './order-config';

export const CONSOLE_ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts', 'console');
export { LOAN_MESSAGE };

/** The loan submit's upstream path, which a held loan turn's faults fail. */
export const SUBMIT_PATH = '/loan/applications';
/** The loan submit held for an operator (#22) once out of retries: two quick attempts. */
export const HOLD = { onRetriesExhausted: 'HOLD', maxAttempts: 2, initialIntervalMs: 100 } as const;

/** A sent turn: its HTTP status and the ids the console pages are addressed by. */
export interface SentTurn {
  status: number;
  workflowId: string;
  conversationId: string;
}

/**
 * The turn console (/console) in headless Chromium (Debian's `chromium`, driven by playwright-core), against
 * the API on the real turn workflow: our dev server here, the real server in `npm run test:temporal`.
 */
export class ConsoleBrowser {
  private started: { h: ApiHarness; browser: Browser } | null = null;

  private constructor() {}

  /** The console's API harness, once started. */
  get h(): ApiHarness {
    return this.running().h;
  }

  get browser(): Browser {
    return this.running().browser;
  }

  /**
   * The console a browser test file shares, registered in the calling file (or `describe`): each test given
   * `timeoutMs`, the console started before the tests and stopped after them, faults a failed test left on the tool
   * server cleared first. Returned at once, to be used in the tests and hooks, as the start happens in beforeAll.
   */
  static forFile(timeoutMs: number, options: ApiHarnessOptions = {}): ConsoleBrowser {
    const c = new ConsoleBrowser();
    jest.setTimeout(timeoutMs);
    beforeAll(() => c.launch(options));
    afterAll(() => c.stop());
    return c;
  }

  private async launch(options: ApiHarnessOptions): Promise<void> {
    mkdirSync(CONSOLE_ARTIFACTS, { recursive: true });
    const h = await ApiHarness.start(options);
    try {
      this.started = { h, browser: await launchChromium() };
    } catch (err) {
      await h.stop();
      throw err;
    }
  }

  private running(): { h: ApiHarness; browser: Browser } {
    if (!this.started) throw new Error('the console did not start (see the beforeAll failure)');
    return this.started;
  }

  private async stop(): Promise<void> {
    const started = this.started;
    if (!started) return;
    this.started = null;
    started.h.wf.mcp.toolServer.faults.clear();
    await started.browser.close();
    await started.h.stop();
  }

  async send(message: string, conversationId?: string): Promise<SentTurn> {
    const res = await this.h.request('POST', '/api/v1/conversation/message', { json: { conversationId, message } });
    const body = res.json();
    const turn = body.turn ?? body.error?.details;
    return { status: res.status, workflowId: turn.workflowId, conversationId: turn.workflowId.slice(5, 41) };
  }

  /** A console page; an uncaught error in it fails the test. */
  async open(path: string, viewport = { width: 1400, height: 1200 }): Promise<Page> {
    const page = await this.browser.newPage({ viewport });
    page.on('pageerror', (err) => {
      throw err;
    });
    await page.goto(`${this.h.baseUrl}/console/${path}`);
    return page;
  }

  async openTurn(workflowId: string): Promise<Page> {
    const page = await this.open(`#/turn/${workflowId}`);
    await page.locator('#timeline').waitFor();
    return page;
  }

  /** A loan turn that submits, parked on an operator (approval or hold): its 202 and its console page. */
  async parkedLoanTurn(rows: Partial<ConfigRows>): Promise<{ turn: SentTurn; page: Page }> {
    await this.h.wf.mcp.configure(rows);
    this.h.wf.mcp.llm.setScript([
      extracted('CUST-1001'),
      plan('loan.application.submit', 'CUST-1001'),
      answer('Submitted LA-90311.'),
    ]);
    const turn = await this.send(LOAN_MESSAGE);
    expect(turn.status).toBe(202);
    return { turn, page: await this.openTurn(turn.workflowId) };
  }

  /**
   * A loan turn whose submit fails upstream (503 until the faults on SUBMIT_PATH are cleared) and is held for an
   * operator (HOLD): its 202 and its console page, showing the held panel.
   */
  async heldLoanTurn(): Promise<{ turn: SentTurn; page: Page }> {
    this.h.wf.mcp.toolServer.faults.set(SUBMIT_PATH, { failTimes: 1_000, status: 503 });
    const parked = await this.parkedLoanTurn(loanConfig({ submit: HOLD }));
    await parked.page.locator('#held-tool').waitFor({ timeout: 60_000 });
    return parked;
  }

  /** Fails a held turn from its page (Fail turn, then Confirm), as an operator ends it, and clears its faults. */
  async failHeldTurn(page: Page): Promise<void> {
    await page.locator('#held-tool button:has-text("Fail turn")').click();
    await page.locator('#held-tool button:has-text("Confirm")').click();
    await page.locator('#failed-turn').waitFor({ timeout: 60_000 });
    this.h.wf.mcp.toolServer.faults.clear(SUBMIT_PATH);
  }

  async operatorActions(conversationId: string) {
    return (await listAudits(this.h.wf.mcp.deps.db, conversationId)).filter((a) => a.stage === 'OPERATOR_ACTION');
  }
}

/** The API refusing every token the console sends, as it refuses a wrong one (401 invalid_token), with `refusal`. */
export async function refuseTokens(page: Page, refusal: { code: string; message: string }): Promise<void> {
  await page.route('**/api/v1/console/**', (route) =>
    route.fulfill({
      status: 401,
      headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
      json: { error: refusal },
    })
  );
}

/** A full-page screenshot under test-artifacts/console/, checked to show something. */
export async function shot(page: Page, name: string): Promise<string> {
  const path = join(CONSOLE_ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  expect(statSync(path).size).toBeGreaterThan(20_000);
  return path;
}

/** Counts the times the page replaced its content (#main's children) from now on. */
export async function countRedraws(page: Page): Promise<() => Promise<number>> {
  await page.evaluate(`window.redraws = 0;
    new MutationObserver(() => window.redraws++).observe(document.getElementById('main'), { childList: true });`);
  return async () => Number(await page.evaluate('window.redraws'));
}

/** Serves the turn's reads through `change`, as another server (real Temporal) might send them. */
export async function rewriteTurnReads(page: Page, change: (turn: ApiJson, read: number) => void) {
  let read = 0;
  await page.unroute('**/api/v1/console/turns/*');
  await page.route('**/api/v1/console/turns/*', async (route: Route) => {
    if (route.request().method() !== 'GET') return route.continue();
    const response = await route.fetch();
    const turn = await response.json();
    change(turn, ++read);
    // A read still in flight when the test removes this route (or closes the page) was let through by Playwright by
    // then: fulfilling it throws, outside any test, which failed every test of the file.
    await route.fulfill({ response, json: turn }).catch((err: unknown) => {
      if (!String(err).includes('Route is already handled')) throw err;
    });
  });
  return () => read;
}
