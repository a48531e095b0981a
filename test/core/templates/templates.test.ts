import { isEngineError } from '../../../core/errors';
import {
  canonicalTemplateVariable,
  checkTemplate,
  extractTemplateVariables,
  isKnownTemplateRoot,
  renderTemplate,
  renderTemplateLenient,
  TEMPLATE_MALFORMED,
  templateVariableAliases,
} from '../../../core/templates';

const vars = {
  context: { customerId: '42', mcp: { finalAnswer: 'FA' }, items: [{ name: 'first' }], nothing: null },
  state: 'S',
  count: 3,
  ok: true,
  list: ['a', 1],
  mixedList: ['b', null, false],
  emptyList: [],
  records: [{ name: 'r' }],
  nestedList: [['a', 'b'], ['c'], [], [1, [null, true]]],
  nestedRecords: [['a'], [{ name: 'r' }]],
  text: 'plain <b>&</b>',
  json: '{"nested":{"value":7}}',
};

function errorOf(fn: () => unknown): { type: string; message: string; details: unknown } {
  try {
    fn();
  } catch (err) {
    if (isEngineError(err)) return { type: err.type, message: err.message, details: err.details };
    throw err;
  }
  throw new Error('expected an error');
}

describe('renderTemplate', () => {
  it.each([
    ['Hello [[${context.customerId}]] / {{state}}', 'Hello 42 / S'],
    ['{{ context.mcp.finalAnswer }}', 'FA'],
    ["{{context['mcp']['finalAnswer']}}", 'FA'],
    ['{{context.items[0].name}}', 'first'],
    ['[(${context.customerId})]', '42'],
    ['#{context.customerId}', '42'],
    ['[${context.customerId}]', '42'],
    ['{{count}} {{ok}}', '3 true'],
    ['{{list}}', '[a, 1]'],
    ['{{mixedList}}', '[b, null, false]'],
    ['{{emptyList}}', '[]'],
    ['{{records}}', '[{"name":"r"}]'],
    ['{{nestedList}}', '[[a, b], [c], [], [1, [null, true]]]'],
    ['{{nestedRecords}}', '[["a"],[{"name":"r"}]]'],
    ['{{context.mcp}}', '{"finalAnswer":"FA"}'],
    ['[{{context.nothing}}]', '[]'],
    ['{{text}}', 'plain <b>&</b>'],
    ['{{json.nested.value}}', '7'],
    ['no variables at all: {"a":[1,2]} [x] #tag', 'no variables at all: {"a":[1,2]} [x] #tag'],
    ['', ''],
  ])('%p → %p', (template, expected) => {
    expect(renderTemplate(template, vars)).toBe(expected);
  });

  it.each([
    ['{{unknown_var}}', 'unknown_var'],
    ['{{context.missing}}', 'context.missing'],
    ['{{context.mcp.finalAnswer.deeper}}', 'context.mcp.finalAnswer.deeper'],
    ['{{context.items[5].name}}', 'context.items[5].name'],
    ['[[${context.nothing.x}]]', 'context.nothing.x'],
  ])('%p throws UNRESOLVED_PROMPT_VARIABLE naming %s', (template, variable) => {
    const err = errorOf(() => renderTemplate(template, vars));
    expect(err.type).toBe('UNRESOLVED_PROMPT_VARIABLE');
    expect(err.message).toContain(`"${variable}"`);
    expect(err.details).toMatchObject({ variable });
  });

  it.each([
    ['{{context.customerId', /never closed/],
    ['[[${context.customerId}', /never closed/],
    ['{{}}', /empty/],
    ['{{a + b}}', /not a variable path/],
    ['[[${context.mcp?.finalAnswer}]]', /not a variable path/],
    ['{{1abc}}', /must start with a name/],
  ])('%p throws TEMPLATE_MALFORMED', (template, reason) => {
    const err = errorOf(() => renderTemplate(template, vars));
    expect(err.type).toBe(TEMPLATE_MALFORMED);
    expect(err.message).toMatch(reason);
    expect(checkTemplate(template)).toMatch(reason);
  });
});

describe('checkTemplate: Thymeleaf syntax the renderer does not implement', () => {
  it.each([
    [`d [# th:if="\${state == 'IDLE'}"]idle[/]`, /a Thymeleaf element block, \[# …\]…\[\/\] at offset 2/],
    ['[#th:block th:each="x : ${xs}"]x[/th:block]', /a Thymeleaf element block/],
    ['done[/]', /the end of a Thymeleaf element block, \[\/\] at offset 4/],
    ['Hi th:text="${name}"', /a Thymeleaf attribute, th:…="…" at offset 3/],
    ['[[*{name}]] [(@{/a})] [[~{frag}]]', /a Thymeleaf expression other than \$\{…\}/],
  ])('%p is refused', (template, reason) => {
    expect(checkTemplate(template)).toMatch(reason);
    expect(checkTemplate(template)).toMatch(/is not supported: only variables are rendered/);
  });

  it.each(['Item [#1] and [#] costs 5 th: 3', 'width: 3; month:5; [${a}] #{b} [[${c}]] [(${d})]', 'say [ # ] or [/ ]'])(
    '%p is accepted',
    (template) => expect(checkTemplate(template)).toBeNull()
  );
});

describe('extractTemplateVariables', () => {
  it('lists normalized paths in order of first use', () => {
    expect(
      extractTemplateVariables(
        "Hi {{user_input}} [[${context.mcp.finalAnswer}]] {{context['odd key'][0]}} #{state} {{ user_input }}"
      )
    ).toEqual(['user_input', 'context.mcp.finalAnswer', "context['odd key'][0]", 'state']);
  });
  it('throws on malformed templates', () => {
    expect(() => extractTemplateVariables('{{oops')).toThrow(/malformed template/);
  });
});

describe('template variable catalog', () => {
  it.each([
    'user_input',
    'userInput',
    'user_message',
    'context',
    'context_json',
    'current_date',
    'missing_fields',
    'schema_field_details',
    'intent_scores',
    'routing_decision',
    'tool_result',
    'mcp_final_answer',
    'mcp_tools',
    'intent',
    'state',
    'schemaComplete',
    'conversationId',
    'inputParams',
    'session',
  ])('knows %s', (name) => {
    expect(isKnownTemplateRoot(name)).toBe(true);
  });

  it('does not know made-up names', () => {
    expect(isKnownTemplateRoot('unknown_var')).toBe(false);
  });

  it('maps aliases to canonical names', () => {
    expect(canonicalTemplateVariable('userText')).toBe('user_input');
    expect(canonicalTemplateVariable('contextJson')).toBe('context');
    expect(templateVariableAliases('conversation_history')).toContain('history');
  });
});

describe('defaults and lenient rendering (issue 14 item 2)', () => {
  it.each([
    ["{{context.missing ?: 'none'}}", 'none'],
    ['[[${context.mcp.finalAnswer ?: "no answer"}]]', 'FA'],
    ["[[${context.nothing ?: 'was null'}]]", 'was null'],
    ["{{ unknown_var ?: 'x' }}", 'x'],
  ])('strict render uses the default of %p → %p', (template, expected) => {
    expect(renderTemplate(template, vars)).toBe(expected);
  });

  it('renders absent values as empty (or their default) and names them', () => {
    expect(renderTemplateLenient("A [[${context.mcp.missing}]] B {{state}} {{nope ?: 'd'}}", vars)).toEqual({
      text: 'A  B S d',
      missing: ['context.mcp.missing', 'nope'],
    });
    expect(renderTemplateLenient('{{state}}', vars)).toEqual({ text: 'S', missing: [] });
  });

  it('still refuses a malformed template', () => {
    expect(errorOf(() => renderTemplateLenient('{{context.x', vars)).type).toBe(TEMPLATE_MALFORMED);
    expect(checkTemplate("{{a ?: 'x' }}")).toBeNull();
    expect(checkTemplate('{{a ?: x}}')).toMatch(/not a variable path/);
  });
});
