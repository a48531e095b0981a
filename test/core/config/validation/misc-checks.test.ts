/**
 * Classifier and policy patterns, ce_config values (parsed as core/config/setting.ts reads them) and semantic
 * mappings.
 */
import { type ConfigRows } from '../../../../core/config/types';
import { configSetting } from '../../../../db/seed/builders';
import { at, itReportsExactly, type ValidateCase } from '../../../support/validate-cases';

const cases: ValidateCase[] = [
  {
    name: 'invalid classifier regex',
    breakIt: (r) => void (at(r.classifiers, 0).pattern = '(?i)[a-'),
    violations: ['ce_intent_classifier[1]'],
    reason: /invalid regular expression/,
  },
  {
    name: 'a classifier regex with a backreference',
    breakIt: (r) => void (at(r.classifiers, 0).pattern = '(\\w)\\1{5}'),
    violations: ['ce_intent_classifier[1]'],
    reason: /pattern: regular expression ".*" uses a backreference/,
  },
  {
    name: 'invalid policy regex',
    breakIt: (r) => void (at(r.policies, 0).pattern = '*oops'),
    violations: ['ce_policy[1]'],
    reason: /invalid regular expression/,
  },
  {
    name: 'a policy regex too large to match in bounded time',
    breakIt: (r) => void (at(r.policies, 0).pattern = 'password.{0,600}reset'),
    violations: ['ce_policy[1]'],
    reason: /is too large to match in bounded time \(\d+ steps, at most 1000\)/,
  },
  {
    name: 'unknown classifier type',
    breakIt: (r) => void (at(r.classifiers, 1).ruleType = 'AGENT'),
    violations: ['ce_intent_classifier[2]'],
    reason: /unknown rule_type "AGENT"/,
  },
  {
    name: 'unknown policy type',
    breakIt: (r) => void (at(r.policies, 0).ruleType = 'EXACT'),
    violations: ['ce_policy[1]'],
    reason: /unknown rule_type "EXACT"/,
  },
  {
    name: 'invalid dialogue-act regex setting',
    breakIt: (r) =>
      r.configs.push(
        configSetting({ configId: 9, configType: 'DialogueActStep', configKey: 'REGEX_AFFIRM', configValue: '(yes' })
      ),
    violations: ['ce_config[9]'],
    reason: /REGEX_AFFIRM/,
  },
  {
    name: 'a dialogue-act setting with a possessive quantifier',
    breakIt: (r) =>
      r.configs.push(
        configSetting({
          configId: 11,
          configType: 'DialogueActStep',
          configKey: 'REGEX_EDIT',
          configValue: '^\\s*+edit$',
        })
      ),
    violations: ['ce_config[11]'],
    reason: /REGEX_EDIT .*uses a possessive quantifier/,
  },
  ...[
    [
      'a pattern that does not compile (the approval gate silently let everything through)',
      '["order("]',
      /\[0\]: invalid regular expression/,
    ],
    ['an object', '{"a":1}', /must be a JSON array of regular expressions/],
    ['numbers', '[1,2]', /must be a JSON array of regular expressions/],
    ['not JSON', '[order', /is not valid JSON/],
  ].map(([what, value, reason]) => ({
    name: `SENSITIVE_PATTERNS holding ${String(what)}`,
    breakIt: (r: ConfigRows) =>
      r.configs.push(
        configSetting({
          configId: 11,
          configType: 'GuardrailStep',
          configKey: 'SENSITIVE_PATTERNS',
          configValue: value as string,
        })
      ),
    violations: ['ce_config[11]'],
    reason: reason as RegExp,
  })),
  {
    name: 'a guardrail SENSITIVE_PATTERNS entry that does not compile (it would never flag a message)',
    breakIt: (r) =>
      r.configs.push(
        configSetting({
          configId: 12,
          configType: 'GuardrailStep',
          configKey: 'SENSITIVE_PATTERNS',
          configValue: '["(?i)delete account", "(close|cancel) (\\\\w+) \\\\2"]',
        })
      ),
    violations: ['ce_config[12]'],
    reason:
      /GuardrailStep\.SENSITIVE_PATTERNS \[1\]: regular expression "\(close\|cancel\) \(\\w\+\) \\2" uses a backreference/,
  },
  {
    name: 'unparseable declared setting',
    breakIt: (r) => void (at(r.configs, 0).configValue = 'lots'),
    violations: ['ce_config[1]'],
    reason: /must be a number/,
  },
  {
    name: 'an int setting past what a timer takes (it once made an invalid Date in the workflow)',
    breakIt: (r) =>
      void Object.assign(at(r.configs, 0), {
        configKey: 'APPROVAL_TIMEOUT_MS',
        configValue: '99999999999999999999',
      }),
    violations: ['ce_config[1]'],
    reason: /must be <= 2147483647/,
  },
  {
    name: 'a planner loop limit past what a turn history holds',
    breakIt: (r) => void (at(r.configs, 0).configValue = '1000000'),
    violations: ['ce_config[1]'],
    reason: /MCP_TOOL_MAX_LOOPS must be <= 100/,
  },
  {
    name: 'an int setting in another notation than decimal digits',
    breakIt: (r) => void (at(r.configs, 0).configValue = '1e3'),
    violations: ['ce_config[1]'],
    reason: /must be an integer in decimal digits/,
  },
  {
    name: 'semantic mapping to an unknown concept',
    breakIt: (r) => void (at(r.semanticMappings, 0).conceptKey = 'LEASE'),
    violations: ['ce_semantic_mapping[1]'],
    reason: /concept_key "LEASE"/,
  },
];

describe('validateConfig: matchers, settings and semantic rows (core/config/validation/misc-checks.ts)', () => {
  itReportsExactly(cases);
});
