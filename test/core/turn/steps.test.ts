import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_RETRYABLE, ErrorType, PERMANENT_ERROR_TYPES } from '../../../core/errors';
import { COMMIT_STEPS, PIPELINE_STEPS_AFTER_MCP, PIPELINE_STEPS_BEFORE_MCP } from '../../../core/turn/contracts';
import {
  LLM_TIMEOUT_MAX_MS,
  llmSdkRetries,
  MODEL_TIMEOUT_MS,
  STEP_NAMES,
  STEP_SPECS,
  STEP_TABLE,
  toolRetry,
} from '../../../core/turn/steps';
import { stepsTableMarkdown } from '../../../scripts/steps-reference';

describe('the step table (core/turn/steps.ts, D19)', () => {
  it('lists every pipeline step and MCP unit once, under its own name', () => {
    for (const name of [...PIPELINE_STEPS_BEFORE_MCP, ...PIPELINE_STEPS_AFTER_MCP, ...COMMIT_STEPS]) {
      expect(STEP_NAMES).toContain(name);
    }
    expect(new Set(STEP_NAMES).size).toBe(STEP_NAMES.length);
    for (const name of STEP_NAMES) expect(STEP_TABLE[name].name).toBe(name);
  });

  it('keeps LLM steps, planner iterations, tool calls and business writes regular activities (D19)', () => {
    for (const spec of STEP_SPECS) {
      if (['LLM_CALL', 'TOOL_CALL', 'BUSINESS_WRITE', 'CONSUMER_TASK'].includes(spec.sideEffect)) {
        expect([spec.name, spec.kind]).not.toEqual([spec.name, 'local']);
      }
    }
    expect(STEP_TABLE.McpPlan.kind).toBe('model');
    expect(STEP_TABLE.McpToolCall.kind).toBe('remote');
    expect(STEP_TABLE.PersistConversation.kind).toBe('remote');
    for (const spec of STEP_SPECS) expect(spec.retry.maximumAttempts).toBeGreaterThan(1);
  });

  it('gives tools their side-effect class defaults, the row overriding', () => {
    const tool = (
      sideEffect: 'READ_ONLY' | 'IDEMPOTENT_WRITE' | 'NON_IDEMPOTENT_WRITE',
      maxAttempts: number | null
    ) => ({
      toolCode: 't',
      toolGroup: 'DB',
      sideEffect,
      requiresApproval: false,
      approvalTimeoutMs: null,
      directCallable: false,
      retry: {
        maxAttempts,
        initialIntervalMs: null,
        backoffCoefficient: null,
        maxIntervalMs: null,
        startToCloseTimeoutMs: null,
      },
    });
    expect(toolRetry(tool('READ_ONLY', null)).maximumAttempts).toBe(5);
    expect(toolRetry(tool('IDEMPOTENT_WRITE', null)).maximumAttempts).toBe(3);
    expect(toolRetry(tool('NON_IDEMPOTENT_WRITE', 9)).maximumAttempts).toBe(1);
    expect(toolRetry(tool('READ_ONLY', 2)).maximumAttempts).toBe(2);
  });

  it('derives the permanent error types from the one retryability table', () => {
    expect(Object.keys(ERROR_RETRYABLE).sort()).toEqual(Object.values(ErrorType).sort());
    expect(PERMANENT_ERROR_TYPES).toContain('CONFIG_INVALID');
    expect(PERMANENT_ERROR_TYPES).toContain('STALE_TURN');
    expect(PERMANENT_ERROR_TYPES).not.toContain('LLM_CALL_FAILED');
  });

  it('is what docs/architecture.md shows (npm run docs:steps)', () => {
    // Prettier pads the table's columns; compare cell by cell.
    const cells = (md: string) =>
      md
        .replace(/ *\| */g, '|')
        .replace(/-{3,}/g, '---')
        .replace(/\n+/g, '\n');
    const doc = readFileSync(join(__dirname, '../../../docs/architecture.md'), 'utf8');
    expect(cells(doc)).toContain(cells(stepsTableMarkdown()));
  });
});

describe('the SDK tries of one model call fit in one attempt of a model step', () => {
  it('gives the SDK two retries at the default 60 s, fewer as LLM_TIMEOUT_MS grows, none past half the attempt', () => {
    expect(llmSdkRetries(60_000)).toBe(2);
    expect(llmSdkRetries(100_000)).toBe(1);
    expect(llmSdkRetries(LLM_TIMEOUT_MAX_MS)).toBe(0);
    for (const timeout of [1, 1_500, 60_000, 76_667, 80_000, 115_000, 120_000, LLM_TIMEOUT_MAX_MS]) {
      const tries = llmSdkRetries(timeout) + 1;
      expect(tries * timeout).toBeLessThanOrEqual(LLM_TIMEOUT_MAX_MS);
      expect(LLM_TIMEOUT_MAX_MS).toBeLessThan(MODEL_TIMEOUT_MS);
    }
    for (const name of STEP_NAMES.filter((n) => STEP_TABLE[n].sideEffect === 'LLM_CALL')) {
      expect(STEP_TABLE[name].startToCloseMs).toBe(MODEL_TIMEOUT_MS);
    }
  });
});
