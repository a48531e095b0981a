/**
 * A held tool call's rows in the turn's timeline: each hold's rows (TOOL_HELD, TOOL_HOLD_RESOLVED) with the McpToolHold
 * step that wrote them, each run of a request's direct call with its DirectToolCall step; under "Decisions and
 * operator actions" only the decisions and the operator's actions, for a planner's call and a direct call alike.
 */
import { type Page } from 'playwright-core';
import { eventually } from '../devserver/harness';
import { ConsoleBrowser, HOLD, LOAN_MESSAGE, SUBMIT_PATH } from '../support/console-browser';
import { configRow } from '../support/config-rows';
import { extracted, loanConfig } from '../support/loan-config';
import { answer } from '../support/order-config';

const c = ConsoleBrowser.forFile(240_000);

/** The audit stages each timeline row of `type` lists, row by row. */
const stagesOf = (page: Page, type: string) =>
  page
    .locator(`#timeline tr[data-type=${type}]`)
    .evaluateAll((rows) =>
      rows.map((row) => [...row.querySelectorAll('details.audits .stage')].map((s) => s.textContent))
    );

/** The stages listed under "Decisions and operator actions", once each (their text: the list is closed). */
const otherStages = async (page: Page) =>
  [
    ...new Set(await page.locator('#other-audits li .stage').evaluateAll((els) => els.map((e) => e.textContent))),
  ].sort();

async function act(workflowId: string, action: string, json: object): Promise<void> {
  const res = await c.h.request('POST', `/api/v1/console/turns/${workflowId}/actions/${action}`, { json });
  expect([200, 202]).toContain(res.status);
}

async function heldAgain(workflowId: string): Promise<void> {
  const keys = async () =>
    ((await c.h.request('GET', `/api/v1/console/turns/${workflowId}`)).json().audits as { callKey: string }[]).map(
      (a) => a.callKey
    );
  await eventually(async () => expect(await keys()).toContainEqual(expect.stringMatching(/-hold-2-held$/)), 60_000);
}

/** Two holds (held, then resolved, each its own McpToolHold), each row with its step's stage, none left over. */
const TWO_HOLDS = [1, 2].flatMap(() => [
  expect.arrayContaining(['TOOL_HELD']),
  expect.arrayContaining(['TOOL_HOLD_RESOLVED']),
]);

test("a planner's held call: each hold's rows are its McpToolHold step's, not decisions", async () => {
  const { turn, page } = await c.heldLoanTurn();
  await act(turn.workflowId, 'held-retry', { callIndex: 1 });
  await heldAgain(turn.workflowId);
  await act(turn.workflowId, 'held-mark-done', { callIndex: 1, result: { applicationId: 'LA-90311' } });
  await page.locator('h1:has-text("ANSWERED")').waitFor({ timeout: 60_000 });

  await eventually(async () => expect(await stagesOf(page, 'McpToolHold')).toEqual(TWO_HOLDS), 15_000);
  expect(await otherStages(page)).toEqual(['OPERATOR_ACTION', 'TURN_DECISION']);
  c.h.wf.mcp.toolServer.faults.clear(SUBMIT_PATH);
  await page.close();
});

test("a request's direct call held twice: each run's rows are its DirectToolCall step's, each hold's its own", async () => {
  await c.h.wf.mcp.configure(loanConfig({ submit: { ...HOLD, allowDirectRequest: true } }));
  c.h.wf.mcp.llm.setScript([extracted('CUST-1001'), answer('Submitted.')]);
  c.h.wf.mcp.toolServer.faults.set(SUBMIT_PATH, { failTimes: 1_000, status: 503 });
  const toolRequest = { tool_code: 'loan.application.submit', args: { customerId: 'CUST-1001' } };
  const sent = await c.h.request('POST', '/api/v1/conversation/message', {
    json: { message: LOAN_MESSAGE, inputParams: { tool_request: toolRequest } },
  });
  expect(sent.status).toBe(202);
  const { workflowId } = sent.json().turn;
  const page = await c.openTurn(workflowId);
  await page.locator('#held-tool').waitFor({ timeout: 60_000 });
  await act(workflowId, 'held-retry', { callIndex: 0 });
  await heldAgain(workflowId);
  c.h.wf.mcp.toolServer.faults.clear(SUBMIT_PATH);
  await act(workflowId, 'held-retry', { callIndex: 0 });
  await page.locator('h1:has-text("ANSWERED")').waitFor({ timeout: 60_000 });

  const audits: { callKey: string; stage: string }[] = (
    await c.h.request('GET', `/api/v1/console/turns/${workflowId}`)
  ).json().audits;
  const runs = [/-direct-tool$/, /-direct-tool-retry-1$/, /-direct-tool-retry-2$/].map((run) =>
    audits.filter((a) => run.test(a.callKey)).map((a) => a.stage)
  );
  expect(runs.map((stages) => stages.length > 0)).toEqual([true, true, true]);
  await eventually(async () => expect(await stagesOf(page, 'DirectToolCall')).toEqual(runs), 15_000);
  expect(await stagesOf(page, 'McpToolHold')).toEqual(TWO_HOLDS);
  expect(await otherStages(page)).toEqual(['OPERATOR_ACTION', 'TURN_DECISION']);
  await page.close();
});

/** The turn's McpToolHold steps as its API reads them from history, and whether it is held now. */
async function holdSteps(workflowId: string): Promise<{ steps: unknown[]; held: boolean }> {
  const turn = (await c.h.request('GET', `/api/v1/console/turns/${workflowId}`)).json();
  const steps = turn.story.timeline.filter((item: { type?: string }) => item.type === 'McpToolHold');
  return { steps, held: turn.heldTool !== null };
}

test("an audit policy that drops every row of the holds' held steps: each resolution stays with its own step", async () => {
  // Only the operators' resolutions are written: the held steps (McpToolHold 1 and 3) write no row at all.
  const policy = configRow('AuditService', 'INCLUDE_STAGES', 'TOOL_HOLD_RESOLVED,USER_INPUT,TURN_DECISION');
  const config = loanConfig({ submit: HOLD });
  c.h.wf.mcp.toolServer.faults.set(SUBMIT_PATH, { failTimes: 1_000, status: 503 });
  const { turn, page } = await c.parkedLoanTurn({ ...config, configs: [...(config.configs ?? []), policy] });
  await page.locator('#held-tool').waitFor({ timeout: 60_000 });
  await act(turn.workflowId, 'held-retry', { callIndex: 1 });
  // Held again: the second hold's held step (the third McpToolHold) has run.
  await eventually(async () => {
    const { held, steps } = await holdSteps(turn.workflowId);
    expect([held, steps.length]).toEqual([true, 3]);
  }, 60_000);
  await act(turn.workflowId, 'held-mark-done', { callIndex: 1, result: { applicationId: 'LA-90311' } });
  await page.locator('h1:has-text("ANSWERED")').waitFor({ timeout: 60_000 });

  const resolved = expect.arrayContaining(['TOOL_HOLD_RESOLVED']);
  await eventually(
    async () => expect(await stagesOf(page, 'McpToolHold')).toEqual([[], resolved, [], resolved]),
    15_000
  );
  const actions = await page
    .locator('#timeline tr[data-type=McpToolHold] details.audits pre')
    .evaluateAll((boxes) => boxes.map((box) => JSON.parse(box.textContent ?? '{}')))
    .then((payloads) => payloads.map((p: { hold: number; action: string }) => `${p.hold} ${p.action}`));
  expect(actions).toEqual(['1 retry', '2 markDone']);
  c.h.wf.mcp.toolServer.faults.clear(SUBMIT_PATH);
  await page.close();
});
