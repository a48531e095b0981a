/**
 * The real Temporal Web UI in a real browser (Chromium from Debian, driven by playwright-core): what
 * an operator sees of a turn without reading JSON. Runs in `npm run test:temporal`, which serves the
 * UI at TEMPORAL_UI_URL. `UPDATE_SCREENSHOTS=1` also writes docs/images/temporal-ui-turn.png.
 */
import { copyFileSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { launchChromium, screenshotTaskQueue, temporalUiUrl } from '../support/browser';
import type { DemoTurnRecord } from '../../demo/demo-runner';
import { activityEntries, decodePayload, upsertedSearchAttributes } from '../support/history';
import { callTool, maxLoops, orderConfig } from '../support/order-config';
import { runSeedConversations } from '../support/seed-turns';
import { WorkflowHarness } from '../support/workflow-harness';

const SCREENSHOT = join(__dirname, '..', '..', 'docs', 'images', 'temporal-ui-turn.png');

let h: WorkflowHarness;
let browser: Browser;
let loanTurn: DemoTurnRecord;
let loopLimitTurn: string;

jest.setTimeout(180_000);

beforeAll(async () => {
  h = await WorkflowHarness.start({ taskQueue: screenshotTaskQueue() });
  const records = await runSeedConversations(h, ['loan-confirmation']);
  loanTurn = records.find((r) => r.turn === 3) as DemoTurnRecord;
  // A planner that never answers: the order-diagnostics config with a loop limit of 3.
  await h.mcp.configure(orderConfig({ configs: [maxLoops(3)] }));
  h.mcp.llm.setScript([1, 2, 3].map((n) => callTool('mock.order.status', { orderId: `ORD-70${n}` })));
  const reply = await h.send({ message: 'Check order ORD-7017 status and trace.' });
  if (reply.kind !== 'COMPLETED') throw new Error(`loop-limit turn did not complete: ${JSON.stringify(reply)}`);
  loopLimitTurn = reply.ref.workflowId;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await h?.stop();
});

/** The turn's page once its event history has loaded. */
async function openTurn(workflowId: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1600, height: 1400 } });
  await page.goto(`${temporalUiUrl()}/namespaces/${h.temporal.namespace}/workflows/${workflowId}`);
  await page.getByText('LoadOrCreateConversation').first().waitFor();
  await page.getByText('Loading...').waitFor({ state: 'hidden' });
  return page;
}

async function memoTab(page: Page): Promise<string> {
  await page.getByText('Memo', { exact: true }).first().click();
  await page.getByText('"decisionLog"').waitFor();
  return page.innerText('body');
}

async function searchAttributesTab(page: Page): Promise<string> {
  await page.getByText('Search Attributes', { exact: true }).first().click();
  await page.getByText('"TurnOutcome"').waitFor();
  return page.innerText('body');
}

test('a planner turn shows every step and tool call by name, from the activity summaries', async () => {
  const page = await openTurn(loanTurn.workflowId as string);
  const text = await page.innerText('body');
  const activities = activityEntries(await h.history(loanTurn.workflowId as string));
  expect(activities.length).toBeGreaterThan(25);
  // Regular activities are listed as "type • summary"; local ones (V2 bookkeeping steps) by their type. A step
  // that ran in a step run is named in its run's summary (LocalSteps in the event's details, RegularSteps in
  // its "RegularSteps • <lead>; then <steps>" row).
  for (const activity of activities) {
    const alone = !activity.local && !activity.inRun;
    expect(text).toContain(alone ? `${activity.type} • ${activity.summary}` : activity.type);
  }
  const regularRuns = (await h.history(loanTurn.workflowId as string))
    .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'RegularSteps')
    .map((e) => decodePayload(e.userMetadata?.summary) as string);
  expect(regularRuns.map((summary) => summary.split(';')[0])).toEqual([
    'DialogueAct: calls the LLM (DA)',
    'ResponseResolution: calls the LLM (RESP_TEXT)',
    'PersistConversation',
  ]);
  for (const summary of regularRuns) expect(text).toContain(`RegularSteps • ${summary.slice(0, 60)}`);
  expect(activities.filter((a) => a.local).length).toBeGreaterThan(5);
  expect(text).toContain('McpToolCall • McpToolCall: loan.credit.rating.check (call 1, READ_ONLY)');
  expect(text).toContain('McpToolCall • McpToolCall: loan.application.submit (call 4, IDEMPOTENT_WRITE)');
  // Payloads are plain JSON (no codec), so input and result read as text, not base64 blobs.
  expect(text).toContain('"message": "Looks good, go ahead."');
  const shot = join(mkdtempSync(join(tmpdir(), 'ce-ui-')), 'temporal-ui-turn.png');
  await page.screenshot({ path: shot });
  expect(statSync(shot).size).toBeGreaterThan(50_000);
  if (process.env.UPDATE_SCREENSHOTS === '1') copyFileSync(shot, SCREENSHOT);
  await page.close();
});

test("the turn's outcome and config version are in its search attributes, and the list filters on them", async () => {
  const attributes = upsertedSearchAttributes(await h.history(loanTurn.workflowId as string));
  const page = await openTurn(loanTurn.workflowId as string);
  const text = await searchAttributesTab(page);
  expect(text).toContain('"TurnOutcome": "ANSWERED"');
  expect(text).toContain(`"ConfigVersion": "${String(attributes['ConfigVersion'])}"`);
  expect(text).toContain('"Intent": "LOAN_APPLICATION"');
  const query = encodeURIComponent(`ConversationId="${loanTurn.conversationId}" AND TurnOutcome="ANSWERED"`);
  await page.goto(`${temporalUiUrl()}/namespaces/${h.temporal.namespace}/workflows?query=${query}`);
  await page
    .getByText(loanTurn.workflowId as string)
    .first()
    .waitFor();
  expect(await page.innerText('body')).toMatch(/1–3\s+of 3/);
  await page.close();
});

test('a loop limit is visible as its own decision, and as the turn outcome', async () => {
  const page = await openTurn(loopLimitTurn);
  // The turn workflow records driver decisions in the memo's decisionLog (no extra activity).
  expect(await memoTab(page)).toContain('LOOP_LIMIT: reason=MCP_TOOL_MAX_LOOPS limit=3');
  expect(await searchAttributesTab(page)).toContain('"TurnOutcome": "LOOP_LIMIT"');
  await page.close();
});
