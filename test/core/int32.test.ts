import { loadEnv } from '../../config/env';
import { parseSettingValue } from '../../core/config/setting';
import { McpLoopSettings } from '../../core/config/settings/mcp';
import { INT32_MAX } from '../../core/int32';
import { DECISION_LIMITS } from '../../core/turn/operator-decision';
import { columnValueProblem } from '../../db/config/yaml-columns';
import { ceIntent } from '../../db/schema/config-tables';

// Every 32-bit bound is INT32_MAX: each accepts it and refuses one more, so a bound written as a literal of its own
// (2 ** 31, 2147483647 with a slip) shows here.
describe('INT32_MAX (core/int32.ts)', () => {
  const past = String(INT32_MAX + 1);

  it('is the largest 32-bit signed integer', () => {
    expect(INT32_MAX).toBe(2 ** 31 - 1);
  });

  it('bounds TURN_REPLY_TIMEOUT_MS', () => {
    expect(loadEnv({ TURN_REPLY_TIMEOUT_MS: String(INT32_MAX) }).TURN_REPLY_TIMEOUT_MS).toBe(INT32_MAX);
    expect(() => loadEnv({ TURN_REPLY_TIMEOUT_MS: past })).toThrow(`must be <= ${INT32_MAX}`);
  });

  it('bounds an int setting without a max of its own', () => {
    const setting = McpLoopSettings.approvalTimeoutMs;
    expect(setting.max).toBeUndefined();
    expect(parseSettingValue(setting, String(INT32_MAX))).toBe(INT32_MAX);
    expect(() => parseSettingValue(setting, past)).toThrow(`must be <= ${INT32_MAX}`);
  });

  it('bounds an integer column of a config YAML tree, both ways', () => {
    expect(columnValueProblem(ceIntent.priority, INT32_MAX)).toBeNull();
    expect(columnValueProblem(ceIntent.priority, -INT32_MAX)).toBeNull();
    expect(columnValueProblem(ceIntent.priority, INT32_MAX + 1)).toMatch(/32-bit/);
    expect(columnValueProblem(ceIntent.priority, -INT32_MAX - 2)).toMatch(/32-bit/);
  });

  it("bounds an operator decision's callIndex as MCP_TOOL_MAX_LOOPS, an int setting, is bounded", () => {
    expect(DECISION_LIMITS.callIndex).toBe(INT32_MAX);
  });
});
