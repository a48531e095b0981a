import { checkNextTool, configuredGuardAllows, semanticSequenceAllows, type McpObservation } from '../../../core/mcp';

const obs = (toolCode: string, result: McpObservation['result'] = {}): McpObservation => ({
  toolCode,
  args: {},
  status: 'SUCCESS',
  result,
});
const interpreted = obs('db.semantic.interpret', { canonicalIntent: { intent: 'X' } });
const off = { enabled: false, failClosed: false, allowedNextByCurrentTool: {} };

describe('semantic sequence guard (§6.4, D6)', () => {
  it.each([
    [[], 'db.semantic.interpret', true],
    [[], 'db.semantic.query', false],
    [[obs('db.semantic.interpret', { meta: { needsClarification: true } })], 'db.semantic.query', false],
    [[interpreted], 'db.semantic.query', true],
    [[interpreted], 'postgres.query', false],
    [[interpreted, obs('db.semantic.query')], 'postgres.query', true],
    [[interpreted, obs('db.semantic.query')], 'db.semantic.query', true],
    [[interpreted, obs('db.semantic.query')], 'mock.order.status', false],
    [[interpreted, obs('db.semantic.query'), obs('postgres.query')], 'anything.else', true],
    [[obs('mock.order.status')], 'postgres.query', true],
  ] as const)('after %j, next %s → %s', (observations, next, allowed) => {
    expect(semanticSequenceAllows(next, observations)).toBe(allowed);
  });
});

describe('configured next-tool guard', () => {
  const map = { __START__: ['mock.order.status'], 'MOCK.ORDER.STATUS': ['mock.order.async.trace'] };
  it('allows everything when disabled', () => {
    expect(configuredGuardAllows('x', [], off)).toBe(true);
  });
  it('checks the allowed-next list of the current tool, case-insensitively', () => {
    const guard = { enabled: true, failClosed: false, allowedNextByCurrentTool: map };
    expect(configuredGuardAllows('mock.order.async.trace', [], guard)).toBe(false);
    expect(configuredGuardAllows('Mock.Order.Status', [], guard)).toBe(true);
    expect(configuredGuardAllows('mock.order.async.trace', [obs('mock.order.status')], guard)).toBe(true);
    expect(configuredGuardAllows('', [], guard)).toBe(false);
  });
  it('follows fail-open / fail-closed for an unmapped current tool or an empty map', () => {
    expect(configuredGuardAllows('a', [], { enabled: true, failClosed: false, allowedNextByCurrentTool: {} })).toBe(
      true
    );
    expect(configuredGuardAllows('a', [], { enabled: true, failClosed: true, allowedNextByCurrentTool: {} })).toBe(
      false
    );
    expect(
      configuredGuardAllows('a', [obs('other')], { enabled: true, failClosed: true, allowedNextByCurrentTool: map })
    ).toBe(false);
    expect(
      configuredGuardAllows('a', [obs('other')], { enabled: true, failClosed: false, allowedNextByCurrentTool: map })
    ).toBe(true);
  });
});

describe('checkNextTool order', () => {
  it('reports scope first, then the semantic guard, then the configured guard', () => {
    const guard = { enabled: true, failClosed: true, allowedNextByCurrentTool: {} };
    const base = { observations: [], config: guard };
    expect(checkNextTool({ ...base, toolCode: 'x.y', toolsInScope: ['a.b'] })).toEqual({
      allowed: false,
      reason: 'TOOL_NOT_IN_SCOPE',
      currentTool: '__START__',
    });
    expect(
      checkNextTool({ ...base, toolCode: 'db.semantic.query', toolsInScope: ['db.semantic.query'] })
    ).toMatchObject({ reason: 'SEMANTIC_PIPELINE_SEQUENCE_GUARD_BLOCKED' });
    expect(checkNextTool({ ...base, toolCode: 'a.b', toolsInScope: ['A.B'] })).toMatchObject({
      reason: 'NEXT_TOOL_GUARDRAIL_BLOCKED',
    });
    expect(checkNextTool({ observations: [obs('q')], config: off, toolCode: 'a.b', toolsInScope: ['a.b'] })).toEqual({
      allowed: true,
    });
  });
});
