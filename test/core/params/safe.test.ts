import { isTruthyFlag, safeInputParams, UNSAFE_PARAM_KEYS } from '../../../core/params/safe';

describe('safe input params (core/params/safe.ts)', () => {
  it('keeps the other params in their order and lists the dropped ones in theirs', () => {
    const params = {
      b: 1,
      context: { big: true },
      a: { nested: ['x'] },
      schema_json: '{}',
      10: 'ten',
      mcp_observations: [],
    };
    const safe = safeInputParams(params);
    expect(safe).toEqual({
      10: 'ten',
      b: 1,
      a: { nested: ['x'] },
      droppedSystemPromptVars: ['context', 'schema_json', 'mcp_observations'],
    });
    expect(Object.keys(safe)).toEqual(['10', 'b', 'a', 'droppedSystemPromptVars']);
    expect(safe['a']).toBe(params.a);
  });

  it('drops every unsafe key, and adds nothing when there is none', () => {
    const all = Object.fromEntries(UNSAFE_PARAM_KEYS.map((key) => [key, key]));
    expect(safeInputParams(all)).toEqual({ droppedSystemPromptVars: [...UNSAFE_PARAM_KEYS] });
    expect(safeInputParams({ amount: 5 })).toEqual({ amount: 5 });
    expect(safeInputParams({})).toEqual({});
  });

  it('reads request flags as clients send them', () => {
    expect([true, 1, 'yes', ' TRUE ', 'y'].map(isTruthyFlag)).toEqual([true, true, true, true, true]);
    expect([false, 0, 'no', null, undefined].map(isTruthyFlag)).toEqual([false, false, false, false, false]);
  });
});
