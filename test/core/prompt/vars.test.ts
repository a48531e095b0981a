import type { JsonObject } from '../../../core/json';
import { sessionSummary } from '../../../core/memory/summary';
import { buildPromptVars, historyForPrompt } from '../../../core/prompt/vars';
import { renderTemplate } from '../../../core/templates';
import { sessionFor } from '../../support/config-rows';

describe('prompt variables (§8.1)', () => {
  const session = sessionFor('hello there', {
    intent: 'I',
    state: 'S',
    context: { customerId: '42', intent: 'CTX' },
    inputParams: { dialogue_act: 'EDIT', session: { huge: true } },
    history: [
      { turnNumber: 2, userInput: 'second', assistantOutput: { type: 'TEXT', value: 'two' } },
      { turnNumber: 1, userInput: 'first', assistantOutput: { a: 1 } },
    ],
  });

  it('flattens session, safe params and context (first writer wins); aliases and times are present', () => {
    const vars = buildPromptVars(session, { now: '2026-03-01T10:00:00.000Z', extra: { options: 'a, b' } });
    expect(vars).toMatchObject({
      intent: 'I',
      customerId: '42',
      dialogue_act: 'EDIT',
      user_input: 'hello there',
      userInput: 'hello there',
      current_date: '2026-03-01',
      current_year: '2026',
      options: 'a, b',
      turnNumber: 1,
    });
    expect(vars['inputParams']).toEqual({ dialogue_act: 'EDIT', droppedSystemPromptVars: ['session'] });
    expect(renderTemplate('{{intent}} {{context.intent}} [[${customerId}]]', vars)).toBe('I CTX 42');
  });

  it('every catalog name exists, so validated templates never fail on a known name', () => {
    const vars = buildPromptVars(session);
    expect(renderTemplate('[{{mcp_tools}}][{{intent_scores}}][{{tool_result}}][{{effectiveInput}}]', vars)).toBe(
      '[][][][hello there]'
    );
  });

  it('lays step variables over the others: an overridden name keeps its place, new names come before the catalog fill', () => {
    const plain = Object.keys(buildPromptVars(session, { now: '2026-03-01T10:00:00.000Z' }));
    const vars = buildPromptVars(session, {
      now: '2026-03-01T10:00:00.000Z',
      extra: { intent: 'STEP', options: 'a, b', mcp_tools: 'tools' },
    });
    const keys = Object.keys(vars);
    expect(vars['intent']).toBe('STEP');
    expect(keys.indexOf('intent')).toBe(plain.indexOf('intent'));
    expect(keys.slice(keys.indexOf('payload'), keys.indexOf('payload') + 3)).toEqual([
      'payload',
      'options',
      'mcp_tools',
    ]);
    // Without them, the catalog fill adds both (null) later; everything else keeps its place.
    const others = (list: string[]) => list.filter((k) => k !== 'options' && k !== 'mcp_tools');
    expect(others(keys)).toEqual(others(plain));
    expect(plain.indexOf('options')).toBeGreaterThan(plain.indexOf('payload'));
    expect(buildPromptVars(session, { extra: {} })).not.toBe(buildPromptVars(session, { extra: {} }));
  });

  it('a __proto__ key in the session or the step variables is data, as when the variables were copied', () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": "yes"}, "a": 1}') as JsonObject;
    const vars = buildPromptVars({ ...session, context: hostile });
    expect(Object.getPrototypeOf(vars)).toBe(Object.prototype);
    expect(vars['polluted']).toBeUndefined();
    expect(vars['a']).toBe(1);
    const withExtra = buildPromptVars(session, { extra: JSON.parse('{"__proto__": {"x": 1}, "b": 2}') as JsonObject });
    expect(Object.getPrototypeOf(withExtra)).toBe(Object.prototype);
    expect(Object.hasOwn(withExtra, '__proto__')).toBe(true);
    expect(withExtra['b']).toBe(2);
  });

  it('history reads oldest first; the memory summary quotes recent turns and is capped', () => {
    expect(historyForPrompt(session.history)).toEqual([
      { user: 'first', assistant: '{"a":1}' },
      { user: 'second', assistant: 'two' },
    ]);
    const withReply = { ...session, payload: { type: 'TEXT' as const, value: 'Answer' } };
    expect(sessionSummary(withReply, 1, 1200)).toBe(
      'intent=I, state=S, user=hello there, recentTurns=[{u=second,a=two}], response=Answer'
    );
    expect(sessionSummary(withReply, 3, 10)).toHaveLength(10);
  });
});
