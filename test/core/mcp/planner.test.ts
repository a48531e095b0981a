import type { McpObservation, PlannerOutput } from '../../../core/mcp';
import {
  compactObservations,
  latestSummary,
  normalizePlannerOutput,
  plannerTools,
  selectPlannerPrompt,
  toolCodesInPrompt,
} from '../../../core/mcp';
import { emptyConfigRows } from '../../../core/config/rows';
import type { ConfigSnapshot } from '../../../core/config/types';
import type { McpPlannerRow, McpToolRow } from '../../../core/config/tool-rows';

describe('planner output normalization (§6.2, §14 #37)', () => {
  const plan = "I couldn't plan tool usage safely. Can you rephrase your question?";
  it.each([
    ['unparseable output', { ok: false } as const, { action: 'ANSWER', answer: plan }],
    ['a non-object', { ok: true, json: ['CALL_TOOL'] } as const, { action: 'ANSWER', answer: plan }],
    [
      'an action outside the contract',
      { ok: true, json: { action: 'clarify', answer: 'which?' } } as const,
      { action: 'ANSWER', answer: plan },
    ],
    [
      'CALL_TOOL without a tool',
      { ok: true, json: { action: 'CALL_TOOL', tool_code: null, args: {} } } as const,
      { action: 'ANSWER', answer: "I couldn't decide the next tool step safely." },
    ],
    [
      'a tool without an action',
      { ok: true, json: { tool_code: ' mock.order.status ', args: { orderId: 'ORD-1' } } } as const,
      { action: 'CALL_TOOL', toolCode: 'mock.order.status', args: { orderId: 'ORD-1' } },
    ],
    [
      'a lower-case answer',
      { ok: true, json: { action: 'answer', answer: ' Done ', args: { x: 1 } } } as const,
      { action: 'ANSWER', answer: 'Done', args: {} },
    ],
    [
      'an operation tag',
      {
        ok: true,
        json: { action: 'CALL_TOOL', tool_code: 't.x', args: [], operation_tag: 'POLICY_RESTRICTED_OPERATION' },
      } as const,
      { action: 'CALL_TOOL', toolCode: 't.x', args: {}, operationTag: 'POLICY_RESTRICTED_OPERATION' },
    ],
  ])('handles %s', (_name, output, expected) => {
    expect(normalizePlannerOutput(output as PlannerOutput)).toMatchObject(expected);
  });
});

function planner(id: number, intentCode: string, stateCode: string, enabled = true): McpPlannerRow {
  return {
    plannerId: id,
    intentCode,
    stateCode,
    systemPrompt: `sys ${id}`,
    userPrompt: `user ${id}`,
    enabled,
    createdAt: '2026-01-01',
  };
}

function snapshot(planners: McpPlannerRow[], configs: ConfigSnapshot['rows']['configs'] = []): ConfigSnapshot {
  return { version: 'v', rows: { ...emptyConfigRows(), mcpPlanners: planners, configs } };
}

describe('planner prompt selection (scenario 42)', () => {
  const snap = snapshot([
    planner(1001, 'ANY', 'ANY'),
    planner(1003, 'LOAN_APPLICATION', 'ANY'),
    planner(1002, 'LOAN_APPLICATION', 'ELIGIBILITY_GATE'),
    planner(1004, 'ANY', 'CONFIRMATION'),
    planner(1005, 'LOAN_APPLICATION', 'ELIGIBILITY_GATE', false),
  ]);
  it.each([
    ['LOAN_APPLICATION', 'ELIGIBILITY_GATE', 1002],
    ['LOAN_APPLICATION', 'CONFIRMATION', 1003],
    ['FAQ', 'CONFIRMATION', 1004],
    ['FAQ', 'IDLE', 1001],
  ])('picks the most specific row for %s/%s', (intent, state, id) => {
    const prompt = selectPlannerPrompt(snap, intent, state);
    expect(prompt.systemPrompt).toBe(`sys ${id}`);
    expect(prompt.source).toMatch(new RegExp(`^ce_mcp_planner\\(planner_id=${id}, `));
  });

  it('breaks ties by the higher planner_id', () => {
    const prompt = selectPlannerPrompt(snapshot([planner(7, 'ANY', 'ANY'), planner(9, 'ANY', 'ANY')]), 'X', 'Y');
    expect(prompt.source).toContain('planner_id=9');
  });

  it('falls back to ce_config McpPlanner prompts, then built-ins', () => {
    const legacy = snapshot(
      [],
      [{ configId: 1, configType: 'McpPlanner', configKey: 'SYSTEM_PROMPT', configValue: 'legacy sys', enabled: true }]
    );
    const prompt = selectPlannerPrompt(legacy, 'FAQ', 'IDLE');
    expect(prompt).toMatchObject({ systemPrompt: 'legacy sys', source: 'ce_config(SYSTEM_PROMPT,USER_PROMPT)' });
    expect(prompt.userPrompt).toContain('{{mcp_tools}}');
  });
});

function toolRow(code: string): McpToolRow {
  return {
    toolId: code.length,
    toolCode: code,
    toolGroup: 'HTTP_API',
    intentCode: 'ANY',
    stateCode: 'ANY',
    description: `${code} tool`,
    sideEffect: 'READ_ONLY',
    requiresApproval: false,
    approvalTimeoutMs: null,
    maxAttempts: null,
    initialIntervalMs: null,
    backoffCoefficient: null,
    maxIntervalMs: null,
    startToCloseTimeoutMs: null,
    enabled: true,
    createdAt: '2026-01-01',
  };
}

describe('planner tool list (scenario 43)', () => {
  const tools = [toolRow('mock.order.status'), toolRow('mock.order.async.trace')];
  it('lists only the tools the prompt names in backticks', () => {
    expect(toolCodesInPrompt('use `mock.order.status` then `json`', 'and `Mock.Order.Status`')).toEqual(
      new Set(['mock.order.status'])
    );
    const prompt = { systemPrompt: 'Use `mock.order.status`.', userPrompt: '', source: 's' };
    expect(plannerTools(tools, prompt, snapshot([]))).toEqual([
      {
        tool_code: 'mock.order.status',
        tool_group: 'HTTP_API',
        description: 'mock.order.status tool',
        // No executor row in this snapshot: the tool takes no arguments (fails closed).
        input_schema: { type: 'object', properties: {}, additionalProperties: false },
      },
    ]);
  });
  it('lists every tool when the prompt names none that exist', () => {
    const prompt = { systemPrompt: 'Use `other.tool`.', userPrompt: '', source: 's' };
    expect(plannerTools(tools, prompt, snapshot([]))).toHaveLength(2);
  });
});

describe('observation compaction (D15, scenario 43)', () => {
  const http = (n: number) => ({
    toolCode: `http.${n}`,
    args: { n },
    status: 'SUCCESS',
    result: { status: 200, attempt: 1, latencyMs: 5, mapped: { n, status: 'OK' } },
  });
  it('keeps the last N observations and an HTTP result’s mapped payload', () => {
    const out = compactObservations([http(1), http(2), http(3)], 2, 6000);
    expect(out.entries).toEqual([
      {
        toolCode: 'http.2',
        args: { n: 2 },
        status: 'SUCCESS',
        result: { status: 200, mapped: { n: 2, status: 'OK' } },
      },
      {
        toolCode: 'http.3',
        args: { n: 3 },
        status: 'SUCCESS',
        result: { status: 200, mapped: { n: 3, status: 'OK' } },
      },
    ]);
    expect(JSON.parse(out.json)).toEqual(out.entries);
  });

  it('summarizes DB rows as a row count and a two-row preview', () => {
    const db = {
      toolCode: 'db.x',
      args: {},
      status: 'SUCCESS',
      result: { rows: [{ a: 1 }, { a: 2 }, { a: 3 }], rowCount: 3 },
    };
    expect(compactObservations([db], 2, 6000).entries[0]?.result).toEqual({
      rowCount: 3,
      rowsPreview: [{ a: 1 }, { a: 2 }],
    });
  });

  it('truncates oversized payloads and reports the compaction', () => {
    const big = { toolCode: 'x', args: {}, status: 'SUCCESS', result: { mapped: { text: 'y'.repeat(9000) } } };
    const out = compactObservations([big], 2, 1000);
    expect(out.compacted).toBe(true);
    expect(String((out.entries[0]?.result as { mapped: string }).mapped)).toMatch(/…\(truncated\)$/);
    expect(out.finalChars).toBeLessThan(out.rawChars);
  });

  it('finds the latest summary for duplicate suppression', () => {
    const obs: McpObservation[] = [
      { toolCode: 'a', args: {}, status: 'SUCCESS', result: { summary: 'old' } },
      { toolCode: 'b', args: {}, status: 'SUCCESS', result: { status: 200, mapped: { summary: 'new' } } },
    ];
    expect(latestSummary(obs)).toBe('new');
    expect(latestSummary([])).toBeNull();
  });
});
