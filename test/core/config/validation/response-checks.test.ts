/**
 * Responses render to the user: known type and variables, JSON where output_format is JSON, reserved states
 * honoured.
 */
import { type ConfigRows } from '../../../../core/config/types';
import { response } from '../../../../db/seed/builders';
import { at, itReportsExactly, type ValidateCase } from '../../../support/validate-cases';

const cases: ValidateCase[] = [
  {
    name: 'an exact_text with a Thymeleaf element block (it would reach the user as written)',
    breakIt: (r) => void (at(r.responses, 0).exactText = `d [# th:if="\${state == 'IDLE'}"]idle[/]`),
    violations: ['ce_response[1]'],
    reason: /exact_text: malformed template: a Thymeleaf element block, \[# …\]…\[\/\] at offset 2 is not supported/,
  },
  {
    name: 'response text referencing an unknown variable',
    breakIt: (r) => void (at(r.responses, 3).exactText = 'Hi [[${customerNmae}]]'),
    violations: ['ce_response[4]'],
    reason: /customerNmae/,
  },
  {
    name: 'unknown response_type',
    breakIt: (r) => void (at(r.responses, 0).responseType = 'CANNED'),
    violations: ['ce_response[1]'],
    reason: /response_type "CANNED"/,
  },
  ...(
    [
      'Hi, how can I help you today?',
      '"just a JSON string"',
      '42',
      '{"a":1',
      ' ',
      'Hi {{context.name ?: "there"}}',
      '{"name": {{intent}} {{state}}}',
      '{{state}}',
    ] as const
  ).map((text) => ({
    name: `an EXACT JSON response whose exact_text is ${JSON.stringify(text)}`,
    breakIt: (r: ConfigRows) => void Object.assign(at(r.responses, 0), { outputFormat: 'JSON', exactText: text }),
    violations: ['ce_response[1]'],
    reason:
      text.trim() === ''
        ? /^ce_response\[1\]: EXACT response needs exact_text$/
        : /^ce_response\[1\]: exact_text is not a JSON object or array once each placeholder is taken as one JSON value, which output_format JSON sends as the reply: write it as JSON, e\.g\. .*, or set output_format TEXT$/,
  })),
  ...(
    [
      '{"greeting": "Hi {{context.name ?: \'there\'}}"}',
      '{"intent": {{intent}}, "note": "[[${state}]] and {{intent}}", "n": [[${state}]]}',
      ' [1, {"a": null}] ',
    ] as const
  ).map((text) => ({
    name: `an EXACT JSON response with exact_text ${text}: JSON whatever its values are`,
    breakIt: (r: ConfigRows) => void Object.assign(at(r.responses, 0), { outputFormat: 'JSON', exactText: text }),
    violations: [],
  })),
  {
    name: 'a 5 MB exact_text is refused as text for the user, which no model request carries',
    breakIt: (r) => void (at(r.responses, 0).exactText = 'é'.repeat(2_600_000)),
    violations: ['ce_response[1]'],
    reason: /^ce_response\[1\]: exact_text is 5078 KiB, over the 1024 KiB limit of text sent to the user$/,
  },
  {
    name: 'reserved AWAITING_APPROVAL / TURN_FAILED responses need no rule and may use their own variables (items 5, 10)',
    breakIt: (r) => {
      r.responses.push(
        response({
          responseId: 10,
          intentCode: 'ANY',
          stateCode: 'AWAITING_APPROVAL',
          responseType: 'EXACT',
          exactText: 'Approve {{toolCode}} with {{args.id}} until {{expiresAt}}?',
        }),
        response({
          responseId: 11,
          intentCode: 'FAQ',
          stateCode: 'TURN_FAILED',
          responseType: 'EXACT',
          exactText: 'Sorry ({{failureType}}, retry: {{retryable}}).',
        }),
        response({ responseId: 12, intentCode: 'FAQ', stateCode: 'TURN_FAILED', responseType: 'DERIVED' }),
        response({
          responseId: 13,
          intentCode: 'FAQ',
          stateCode: 'AWAITING_APPROVAL',
          responseType: 'EXACT',
          exactText: 'Failed with {{failureType}}',
        })
      );
    },
    violations: ['ce_response[12]', 'ce_response[13]'],
    reason: /a TURN_FAILED response must be EXACT with output_format TEXT[\s\S]*unknown variable \{\{failureType\}\}/,
  },
  {
    name: 'DERIVED response without a prompt template',
    breakIt: (r) =>
      r.responses.push(response({ responseId: 9, intentCode: 'FAQ', stateCode: 'IDLE', responseType: 'DERIVED' })),
    violations: ['ce_response[9]'],
    reason: /no enabled ce_prompt_template/,
  },
];

describe('validateConfig: responses (core/config/validation/response-checks.ts)', () => {
  itReportsExactly(cases);
});
