/**
 * The turn console (/console) in a real browser: headless Chromium from Debian's `chromium`
 * package, driven by playwright-core, against the API on the real turn workflow (our dev server
 * here; the real server in `npm run test:temporal`). Screenshots are kept under
 * test-artifacts/console/; `UPDATE_SCREENSHOTS=1` also writes docs/images/console.png.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Page } from 'playwright-core';
import type { ConfigRows } from '../../core/config/types';
import { EngineError, ErrorType } from '../../core/errors';
import { listAudits } from '../../db/repositories/audit';
import { CONSOLE_ARTIFACTS as ARTIFACTS, ConsoleBrowser, HOLD, shot, SUBMIT_PATH } from '../support/console-browser';
import { loanConfig } from '../support/loan-config';
import { ensureConversation } from '../../db/repositories/conversation';
import { answer, callTool, maxLoops, orderConfig } from '../support/order-config';
import { runSeedConversations } from '../support/seed-turns';

const README_SHOT = join(__dirname, '..', '..', 'docs', 'images', 'console.png');
const HELD_SHOT = join(__dirname, '..', '..', 'docs', 'images', 'console-held.png');
const TEMPORAL_UI = 'http://temporal-ui.example:8233';
const ORDER_MESSAGE = 'Check order ORD-7017 status and trace.';

const c = ConsoleBrowser.forFile(180_000, { temporalUiUrl: TEMPORAL_UI });

beforeEach(() => {
  c.h.wf.mcp.llm.setScript([]);
  c.h.wf.mcp.setHandlers({});
});

test('the conversation list finds a seed conversation by text, and its turn tells the whole story', async () => {
  const records = await runSeedConversations(c.h.wf, ['loan-confirmation']);
  const last = records.at(-1)!;
  const page = await c.open('');
  await page.locator('#conversations').waitFor();
  await page.fill('input[name=q]', 'go ahead');
  await page.click('button[type=submit]');
  await page.locator(`a[href="#/conversation/${last.conversationId}"]`).click();
  await page.locator('#turns').waitFor();
  expect(await page.locator('#turns tbody tr').count()).toBe(records.length);
  await shot(page, 'conversation');
  await page.locator(`a[href="#/turn/${last.workflowId}"]`).click();
  await page.locator('#timeline').waitFor();
  const text = await page.innerText('main');
  expect(text).toContain('LoadOrCreateConversation');
  expect(text).toContain('McpToolCall: loan.application.submit');
  expect(text).toMatch(/McpPlan #\d/);
  expect(text).toContain(last.reply);
  expect(await page.locator('#config-version').innerText()).toMatch(/^[0-9a-f]{16}$/);
  expect(await page.locator('#temporal-ui-link').getAttribute('href')).toBe(
    `${TEMPORAL_UI}/namespaces/${c.h.wf.temporal.namespace}/workflows/${last.workflowId}`
  );
  const readme = join(ARTIFACTS, 'console.png');
  await page.setViewportSize({ width: 1400, height: 1700 });
  await page.screenshot({ path: readme });
  if (process.env.UPDATE_SCREENSHOTS === '1') copyFileSync(readme, README_SHOT);
  // Audit rows are joined to the step that wrote them.
  await page.locator('tr[data-type=AuditUserInput] details summary').click();
  expect(await page.locator('tr[data-type=AuditUserInput] details').innerText()).toContain('USER_INPUT');
  // The local-first handoff is no failure, and the LLM call's rows sit on the regular run that wrote them.
  expect(await page.locator('#timeline tr.failed').count()).toBe(0);
  const dialogueAct = page.locator('tr[data-type=DialogueAct]');
  expect(await dialogueAct.count()).toBe(2);
  expect(await dialogueAct.first().innerText()).toContain('HANDED_OFF');
  expect(await dialogueAct.first().innerText()).toContain('handed to a regular activity');
  expect(await dialogueAct.first().locator('details').count()).toBe(0);
  await dialogueAct.last().locator('details summary').click();
  expect(await dialogueAct.last().locator('details').innerText()).toContain('DIALOGUE_ACT_LLM_OUTPUT');
  await shot(page, 'seed-turn');
  await page.close();
});

test("the conversation list pages by the API's cursor: older, then back to the newest", async () => {
  const db = c.h.wf.mcp.deps.db;
  const ids = Array.from({ length: 27 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
  for (const [i, id] of ids.entries()) {
    await ensureConversation(db, id);
    await db.execute(
      `update ce_conversation set state_code = 'PAGING', updated_at = now() - interval '${i} minutes' where conversation_id = '${id}'`
    );
  }
  const listed = async (page: Page) => page.locator('#conversations tbody tr td:first-child').allInnerTexts();
  const page = await c.open('#/?state=PAGING');
  await page.locator('#conversations').waitFor();
  expect(await listed(page)).toEqual(ids.slice(0, 25));
  expect(await page.locator('.pager').innerText()).toBe('25 shown of 27 older →');
  await page.click('text=older →');
  await page.locator('text=← newest').waitFor();
  expect(await listed(page)).toEqual(ids.slice(25));
  expect(await page.locator('.pager').innerText()).toBe('← newest 2 shown of 27');
  await page.click('text=← newest');
  await page.locator('text=older →').waitFor();
  expect(await listed(page)).toEqual(ids.slice(0, 25));
  await page.close();
});

test('a guardrail block shows as its own decision, with no tool activity', async () => {
  await c.h.wf.mcp.configure(orderConfig());
  c.h.wf.mcp.llm.setScript([callTool('loan.application.submit', { customerId: 'C-1' })]);
  const turn = await c.send(ORDER_MESSAGE);
  const page = await c.openTurn(turn.workflowId);
  const text = await page.innerText('main');
  expect(text).toContain('GUARDRAIL_BLOCKED');
  expect(await page.innerText('#decisions')).toContain(
    'Guardrail blocked the tool loan.application.submit (TOOL_NOT_IN_SCOPE); it never ran.'
  );
  expect(await page.locator('tr[data-type=McpPlan]').count()).toBe(1);
  expect(await page.locator('tr[data-type=McpToolCall]').count()).toBe(0);
  expect(await page.innerText('#response')).toContain('Tool sequence guardrail blocked this action');
  await shot(page, 'guardrail-block');
  await page.close();
});

test('a loop-limit stop shows every planner iteration and the limit it hit', async () => {
  await c.h.wf.mcp.configure(orderConfig({ configs: [maxLoops(3)] }));
  c.h.wf.mcp.llm.setScript([1, 2, 3].map((n) => callTool('mock.order.status', { orderId: `ORD-70${n}` })));
  const turn = await c.send(ORDER_MESSAGE);
  const page = await c.openTurn(turn.workflowId);
  expect(await page.innerText('h1')).toContain('LOOP_LIMIT');
  expect(await page.innerText('#decisions')).toContain(
    'Loop limit: the planner was stopped after 3 iterations without an answer (MCP_TOOL_MAX_LOOPS).'
  );
  expect(await page.locator('tr[data-type=McpPlan]').allInnerTexts()).toEqual([
    expect.stringContaining('McpPlan #1'),
    expect.stringContaining('McpPlan #2'),
    expect.stringContaining('McpPlan #3'),
  ]);
  expect(await page.locator('tr[data-type=McpToolCall]').count()).toBe(3);
  await shot(page, 'loop-limit');
  await page.close();
});

/**
 * The conversations page once its panel `panel` (#held-turns, #awaiting-approval) lists the turn: the real server's
 * visibility may lag, so reload until it does.
 */
async function listedIn(panel: string, workflowId: string): Promise<Page> {
  const list = await c.open('');
  const link = list.locator(`${panel} a[href="#/turn/${workflowId}"]`);
  for (let tries = 0; tries < 20; tries++) {
    await list.locator('main h1').waitFor();
    if ((await link.count()) > 0) return list;
    await list.waitForTimeout(500);
    await list.reload();
  }
  throw new Error(`the conversations page never listed ${workflowId} in ${panel}`);
}

test('an approver finds a pending write in the approvals panel and approves it; the decision says who', async () => {
  const { turn, page: parked } = await c.parkedLoanTurn(loanConfig({ submitNeedsApproval: true }));
  await parked.close();
  const list = await listedIn('#awaiting-approval', turn.workflowId);
  const row = list.locator('#awaiting-approval tr', { has: list.locator(`a[href="#/turn/${turn.workflowId}"]`) });
  expect(await row.innerText()).toMatch(new RegExp(`${turn.conversationId}\\s+loan\\.application\\.submit\\s+1\\s`));
  await shot(list, 'approvals-panel');
  await row.locator(`a[href="#/turn/${turn.workflowId}"]`).click();
  const page = list;
  await page.locator('#pending-approval').waitFor();
  expect(await page.innerText('#pending-approval')).toContain('loan.application.submit');
  expect(await page.locator('#live').count()).toBe(1);
  await shot(page, 'approval-pending');
  await page.fill('#pending-approval input[name=reason]', 'checked the file');
  await page.click('#pending-approval button:has-text("Approve")');
  await page.getByText('Submitted LA-90311.').first().waitFor();
  await page.locator('h1:has-text("ANSWERED")').waitFor();
  expect(await page.innerText('#timeline')).toContain(
    'approval decision: approve (call 1) by console — checked the file'
  );
  expect(await page.innerText('#decisions strong')).toBe('Approval of loan.application.submit: APPROVED.');
  await shot(page, 'approval-decided');
  expect((await c.operatorActions(turn.conversationId)).map((a) => a.payload)).toEqual([
    expect.objectContaining({ action: 'approve', reason: 'checked the file', result: 'DONE', source: 'console' }),
  ]);
  await page.close();
});

function withoutReplyFor(rows: Partial<ConfigRows>, state: string): Partial<ConfigRows> {
  return { ...rows, responses: (rows.responses ?? []).filter((r) => r.stateCode !== state) };
}

test('an operator retries a failed turn once the cause is fixed', async () => {
  await c.h.wf.mcp.configure(withoutReplyFor(orderConfig(), 'COMPLETED'));
  const script = [callTool('mock.order.status', { orderId: 'ORD-7017' }), answer('Order submitted.')];
  c.h.wf.mcp.llm.setScript(script);
  const turn = await c.send(ORDER_MESSAGE);
  expect(turn.status).toBe(500);
  const page = await c.openTurn(turn.workflowId);
  expect(await page.innerText('#failed-turn')).toContain('RESPONSE_MAPPING_NOT_FOUND');
  expect(await page.locator('tr[data-type=ResponseResolution].failed').count()).toBe(1);
  await shot(page, 'failed-turn');
  await c.h.wf.mcp.configure(orderConfig());
  c.h.wf.mcp.llm.setScript(script);
  await page.click('#failed-turn button:has-text("Retry turn")');
  await page.locator('h1:has-text("ANSWERED")').waitFor();
  expect(await page.innerText('#response')).toContain('Done: Order submitted.');
  await shot(page, 'failed-turn-retried');
  expect((await c.operatorActions(turn.conversationId)).map((a) => a.payload)).toEqual([
    expect.objectContaining({ action: 'retry', result: 'DONE', httpStatus: 200 }),
  ]);
  await page.close();
});

test('a tool failing in a running turn is retried now through Temporal activity reset', async () => {
  const rows = orderConfig();
  const slowRetry = { initialIntervalMs: 120_000, maxAttempts: 5 };
  await c.h.wf.mcp.configure({
    ...rows,
    mcpTools: (rows.mcpTools ?? []).map((t) => (t.toolCode === 'mock.order.status' ? { ...t, ...slowRetry } : t)),
  });
  let upstreamDown = true;
  c.h.wf.mcp.setHandlers({
    'mock.order.status': async () => {
      if (upstreamDown)
        throw new EngineError(ErrorType.ToolHttpError, 'order service unavailable', { retryable: true });
      return { status: 'SUBMITTED', orderId: 'ORD-7017' };
    },
  });
  c.h.wf.mcp.llm.setScript([callTool('mock.order.status', { orderId: 'ORD-7017' }), answer('Order submitted.')]);
  const conversationId = crypto.randomUUID();
  const workflowId = `turn-${conversationId}-1`;
  const sent = c.h.request('POST', '/api/v1/conversation/message', {
    json: { conversationId, message: ORDER_MESSAGE },
  });
  const page = await c.open(`#/turn/${workflowId}`);
  // The planner's own activity may be the pending one first (a slow LLM step): wait for the tool's failed attempt.
  const pending = page
    .locator('.pending-activity')
    .filter({ hasText: 'McpToolCall is retrying' })
    .filter({ hasText: 'Last failure:' });
  await pending.waitFor({ timeout: 60_000 });
  expect(await pending.innerText()).toContain('McpToolCall is retrying');
  expect(await pending.innerText()).toContain('Last failure: TOOL_HTTP_ERROR: order service unavailable');
  // Still running: the header shows the config version the first step pinned.
  expect(await page.locator('#config-version').innerText()).toMatch(/^[0-9a-f]{16}$/);
  await shot(page, 'tool-retrying');
  upstreamDown = false;
  await pending.locator('button:has-text("Retry now")').click();
  await page.locator('h1:has-text("ANSWERED")').waitFor({ timeout: 60_000 });
  expect((await sent).status).toBe(200);
  expect(await page.locator('tr[data-type=McpToolCall]').innerText()).toContain('COMPLETED');
  expect((await c.operatorActions(conversationId)).map((a) => a.payload)).toEqual([
    expect.objectContaining({ action: 'activity-reset', result: 'DONE' }),
  ]);
  await shot(page, 'tool-retried');
  await page.close();
});

test('a held write shows its tool and error; Retry once upstream is back completes the turn, write applied once', async () => {
  c.h.wf.mcp.toolServer.counters.reset();
  c.h.wf.mcp.toolServer.faults.set(SUBMIT_PATH, { failTimes: 1_000, status: 503 });
  const { turn, page } = await c.parkedLoanTurn(loanConfig({ submit: HOLD }));
  const list = await listedIn('#held-turns', turn.workflowId);
  expect(await list.innerText('#held-turns')).toContain('loan.application.submit');
  await list.close();
  const held = page.locator('#held-tool');
  await held.waitFor();
  expect(await page.innerText('h1')).toContain('HELD');
  expect(await held.innerText()).toMatch(/Tool\s+loan\.application\.submit \(call 1\)/);
  expect(await held.innerText()).toMatch(/Attempts\s+2/);
  expect(await page.innerText('#held-error')).toContain('503');
  expect(await held.innerText()).toMatch(/Side effect\s+IDEMPOTENT_WRITE/);
  expect(await page.innerText('#timeline')).toContain('waiting for an operator on the held tool call');
  await shot(page, 'held-turn');
  const docsShot = join(ARTIFACTS, 'console-held.png');
  await page.screenshot({ path: docsShot });
  if (process.env.UPDATE_SCREENSHOTS === '1') copyFileSync(docsShot, HELD_SHOT);
  // Bad JSON for Mark done stays on the page: nothing is sent, nothing audited.
  await held.locator('textarea[name=result]').fill('{"applicationId": ');
  await held.locator('button:has-text("Mark done")').click();
  const refused = held.locator('textarea[name=result][aria-invalid=true]');
  await refused.waitFor();
  expect(await page.innerText(`#${await refused.getAttribute('aria-describedby')}`)).toContain('write it as JSON');
  expect(await c.operatorActions(turn.conversationId)).toEqual([]);

  c.h.wf.mcp.toolServer.faults.clear(SUBMIT_PATH);
  await held.locator('input[name=reason]').fill('upstream is back');
  await held.locator('button:has-text("Retry")').click();
  await page.locator('h1:has-text("ANSWERED")').waitFor({ timeout: 60_000 });
  expect(await page.innerText('#response')).toContain('Submitted LA-90311.');
  expect(await page.locator('#held-tool').count()).toBe(0);
  expect(await page.innerText('#timeline')).toContain(
    'held tool decision: retry (call 1) by console — upstream is back'
  );
  // Each decision once in words, once as recorded: never the recorded line twice.
  const decided = page.locator('#decisions li', { hasText: 'TOOL_HOLD_RESOLVED' });
  expect(await decided.locator('strong').innerText()).toBe(
    'Held call to loan.application.submit resolved by an operator: retry.'
  );
  expect(await decided.innerText()).toMatch(
    /^Held call[^\n]*\n+TOOL_HOLD_RESOLVED: tool=loan\.application\.submit reason=retry$/
  );
  expect(c.h.wf.mcp.toolServer.counters.totalWriteEffects()).toBe(1);
  const audits = await listAudits(c.h.wf.mcp.deps.db, turn.conversationId);
  expect(audits.filter((a) => a.stage === 'OPERATOR_ACTION').map((a) => a.payload)).toEqual([
    expect.objectContaining({ action: 'held-retry', reason: 'upstream is back', callIndex: 1, result: 'DONE' }),
  ]);
  expect(audits.find((a) => a.stage === 'TOOL_HOLD_RESOLVED')?.payload).toEqual(
    expect.objectContaining({ decided_by: 'console' })
  );
  await shot(page, 'held-turn-retried');
  await page.close();
});
