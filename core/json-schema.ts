import Ajv, { type Options } from 'ajv';
import addFormats from 'ajv-formats';
import { schemaPatternEngine } from './text/regex';

/**
 * An Ajv for JSON Schemas from config rows: formats known; strict mode off, as config schemas carry keywords Ajv
 * does not know (descriptions, examples), while every keyword it knows is enforced; and `pattern` run on the
 * author-regex matcher (RE2, bounded text, see core/text/regex.ts), not on RegExp, which can backtrack for minutes
 * on one argument.
 */
export function newConfigSchemaAjv(options: Options = {}): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: true, ...options, code: { regExp: schemaPatternEngine } });
  addFormats(ajv);
  return ajv;
}
